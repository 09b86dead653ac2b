/**
 * What lives in a project's store directory: the bare shadow repository and the only code that
 * writes it ({@code ShadowRepository}, kept apart from the user's git settings by
 * {@code GitIsolation}), the lock between processes on one project, the restore journal, the
 * directory modes a checkpoint restores, where each tab's last restore left it
 * ({@code TabMoves}), packing when quiet ({@code Maintenance}), and the store's name for a
 * project ({@code ProjectId}).
 *
 * <p>May use {@code checkpoint.lib}, JGit, Jackson and {@code WaymarkHome}; nothing above it.
 */
package dev.waymark.core.checkpoint.store;
