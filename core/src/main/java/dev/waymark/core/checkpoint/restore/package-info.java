/**
 * Where a restore writes the project's files. {@code FileRestore} checks every planned path
 * against the disk ({@code RestoreCheck}, {@code RestoreDecision}: keep, write, merge with
 * {@code TextMerge}, clash), then journals and writes them all or none ({@code RestoreWrite})
 * through {@code WorkTree} (the project's files as a
 * restore reads and writes them, atomically and with their modes), setting aside what it
 * replaces ({@code SetAside}) until the restore is complete. {@code RestoreRecovery} rolls back
 * a restore a crash interrupted.
 *
 * <p>May use {@code checkpoint.lib} and {@code checkpoint.store}; what it needs of the facade
 * (committing a rescue, noting what it wrote) comes in as {@code RestoreParts}.
 */
package dev.waymark.core.checkpoint.restore;
