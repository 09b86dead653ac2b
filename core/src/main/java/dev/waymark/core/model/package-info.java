/**
 * Clients of the model providers on the JDK's HTTP client and Jackson, no vendor SDK:
 * OpenAI-compatible Chat Completions, Anthropic Messages, and a scripted model for tests and the
 * demo, behind {@link dev.waymark.core.model.ChatModel}: streaming, retries, and failures said in
 * words (a wrong server, a wrong key, a limit).
 *
 * <p>May use the JDK and Jackson only: no other Waymark package, nothing printed.
 */
package dev.waymark.core.model;
