/**
 * Subagents as tabs: the {@code task} tool ({@link dev.waymark.core.subagent.TaskTool}) hands a piece of
 * work to a subagent that runs in a new tab of the same workspace, with its own conversation and
 * checkpoints, and answers the parent's call with the subagent's final answer. The tool reaches the
 * workspace only through the {@link dev.waymark.core.subagent.Subagents} seam;
 * {@link dev.waymark.core.subagent.WorkspaceSubagents} is that seam over a {@code Workspace}. The agents a
 * subagent may be ({@link dev.waymark.core.subagent.AgentDefinition}) come from the built-in ones and
 * Markdown files.
 *
 * <p>May use {@code workspace}, {@code agent}, {@code protocol}, {@code model}, {@code tool} and
 * {@code checkpoint} values; no Lanterna, nothing printed.
 */
package dev.waymark.core.subagent;
