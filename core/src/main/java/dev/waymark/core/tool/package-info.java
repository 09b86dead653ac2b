/**
 * The tools the model may call: {@code read_file}, {@code write_file}, {@code edit_file},
 * {@code list_files}, {@code grep}, {@code run_shell} and each MCP server's tools
 * ({@code McpTool}). Paths are confined to the project; every change is recorded in the turn's
 * checkpoint before it is made, and a shell command's changes are found through the turn's
 * {@code snapshotWorkTree}.
 *
 * <p>May use {@code model}, {@code sandbox}, the checkpoint facade and values, and of the engine's
 * insides only {@code CommandSlot}, {@code CommandMark}, {@code WorkTreeChanges} and
 * {@code ProjectWalker}; no Lanterna, nothing printed.
 */
package dev.waymark.core.tool;
