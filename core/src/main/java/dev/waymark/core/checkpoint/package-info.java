/**
 * Checkpoints: the facade the rest of Waymark uses, and the tree engine behind it. Start at
 * {@link dev.waymark.core.checkpoint.ShadowStore} (one project's store: open it, open a tab),
 * {@link dev.waymark.core.checkpoint.CheckpointTree} (one tab's tree: undo, redo, goto, branch,
 * revert, save, diff) and {@link dev.waymark.core.checkpoint.Turn} (one checkpoint being
 * recorded; {@code snapshotWorkTree} for a shell command). The graph ({@code CheckpointGraph} and
 * its package-private {@code Node}), its recorder, writer, loader and retention stay here together
 * because they share the node's state.
 *
 * <p>The engine's layers, each using only those before it: {@code lib} (values), {@code store}
 * (the store directory and JGit), {@code project} (reading the user's project), {@code restore}
 * (writing the project's files for a restore), {@code shell} (finding what a shell command
 * changed). This package may use all of them; none of them uses this one
 * ({@code CheckpointPackagesTest}). No Lanterna, nothing printed.
 */
package dev.waymark.core.checkpoint;
