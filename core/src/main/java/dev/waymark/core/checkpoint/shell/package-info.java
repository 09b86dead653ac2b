/**
 * Where a shell command's changes are found. {@code CommandCapture} is the seam: before a
 * command, after it, and the processes it left running. {@code ShellChangeTracker} is today's
 * implementation: a stat scan of the project before and after (with a persisted
 * {@code StatCache}, the user's index and inotify through {@code TreeWatch}), what other tabs
 * wrote meanwhile left out ({@code OtherWriters}, from the {@code WriteLog}), a
 * {@code ShellJournal} so that a crash loses no command's changes ({@code ShellRecovery}), and
 * what background processes change later ({@code BackgroundJobs}). Commands of one project take
 * turns ({@code CommandSlot}); {@code CommandMark} finds a command's processes again.
 *
 * <p>May use {@code checkpoint.lib}, {@code checkpoint.store} and {@code checkpoint.project}. It
 * records into a checkpoint only through {@code TabRecords} and {@code TabHistory}, which the
 * facade implements: it never sees a turn, a tree or the store.
 */
package dev.waymark.core.checkpoint.shell;
