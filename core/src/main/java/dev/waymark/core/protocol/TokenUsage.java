package dev.waymark.core.protocol;

/** The tokens one model call read and wrote, as the provider counted them. */
public record TokenUsage(long inputTokens, long outputTokens) {}
