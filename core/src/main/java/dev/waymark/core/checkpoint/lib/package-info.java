/**
 * The checkpoint engine's values and small file utilities, used by every layer above and by the
 * rest of core: a file's kind, mode, stat, content ({@code FileState}) and stored version
 * ({@code FileVersion}), a change ({@code FileChange}), the engine's exception, a persistent path
 * table, temporary names beside a file, a file lock between processes.
 *
 * <p>May use the JDK and JGit's object ids and file modes: nothing of Waymark, so that it could be a
 * library of its own (a rules test holds this).
 */
package dev.waymark.core.checkpoint.lib;
