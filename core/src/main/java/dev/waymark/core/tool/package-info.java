/**
 * The tools the model may call: {@code read_file}, {@code write_file}, {@code edit_file},
 * {@code list_files}, {@code grep}, {@code run_shell} and each MCP server's tools
 * ({@code McpTool}). Paths are confined to the project; every change is recorded in the turn's
 * checkpoint before it is made, and a shell command's changes are found through the turn's
 * {@code snapshotWorkTree}.
 *
 * <p>A failed call says what sort of failure it is ({@code ToolResult.errorKind}, the protocol's
 * {@code ErrorKind}), for front ends; the model reads only its words.
 *
 * <p>May use {@code model}, {@code sandbox}, {@code protocol} (the kinds), the checkpoint facade and values, and of the engine's
 * insides only {@code CommandSlot}, {@code CommandMark}, {@code WorkTreeChanges} and
 * {@code ProjectWalker}; no Lanterna, nothing printed.
 */
package dev.waymark.core.tool;
