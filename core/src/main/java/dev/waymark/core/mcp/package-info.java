/**
 * Model Context Protocol servers: their configuration, their lifecycle in one process (started in
 * the background, shared by the tabs, restarted once after a crash, stopped on exit) and their tools
 * as {@link dev.waymark.core.tool.McpTool}s; their prompts and resources, and {@code McpInput}, which
 * turns a typed {@code /SERVER:PROMPT} or {@code @SERVER:URI} into the message sent.
 *
 * <p>Only the {@code Sdk*} classes ({@code SdkConnection}, {@code SdkStart}, {@code SdkContentText})
 * use the official MCP Java SDK (and through it Reactor); everything else talks to a server through
 * the small {@code McpConnection} seam, and the SDK's side is loaded by name when the first server
 * starts, so a run with no server configured never loads the SDK. {@code ManagedServer} keeps one
 * server's state (starting, ready, failed, stopped), its restart after a crash and its calls.
 * May use {@code core.tool}, {@code core.model} (cancellation), {@code core.protocol} (a failure's kind), {@code core.checkpoint}
 * (process marks) and {@code core.context} (the limits and heading of what a mention attaches);
 * never prints: a server's stderr goes to the log.
 */
package dev.waymark.core.mcp;
