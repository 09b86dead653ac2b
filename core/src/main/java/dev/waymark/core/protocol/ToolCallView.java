package dev.waymark.core.protocol;

/** A tool call the model asked for: its id (for Approve and Deny), the tool's name and its JSON arguments. */
public record ToolCallView(String id, String name, String argumentsJson) {}
