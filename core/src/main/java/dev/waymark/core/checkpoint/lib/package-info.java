/**
 * The checkpoint engine's values and small file utilities, used by every layer above and by the
 * rest of core: a file's kind, mode, stat, content ({@code FileState}) and stored version
 * ({@code FileVersion}), a change ({@code FileChange}), the engine's exception, a persistent path
 * table, temporary names beside a file, a file lock between processes.
 *
 * <p>May use the JDK, JGit's object ids and file modes, and {@code WaymarkHome}: no other Waymark
 * package.
 */
package dev.waymark.core.checkpoint.lib;
