/**
 * Where a shell command's changes are found. {@code CommandCapture} is the seam: whether its
 * commands take turns, before a command, the command line it runs, after it, and the processes
 * it left running. It has two implementations. {@code LayerCapture} is capture by construction:
 * a sandboxed command writes a copy-on-write layer of its own ({@code dev.waymark.core.layer}),
 * which is recorded and applied when it ends. {@code ShellChangeTracker} is capture by observation
 * and only orchestrates: the scan before and after is {@code Scanner}'s (the
 * values it makes are {@code Scan}'s; a persisted {@code StatCache}, its bytes laid out by
 * {@code StatCacheFormat}, and the user's index
 * ({@code IndexLookup}) say what each file held, {@code ContentStore} keeps what neither vouches
 * for, {@code ScanComparison} finds what differs after, {@code ExcludedChanges} what changed
 * among the left-out entries), the walk under it {@code TreeWalks}'s (inotify through
 * {@code TreeWatch} keeps the last walk up to date), what other tabs
 * wrote meanwhile left out ({@code OtherWriters}, from the {@code WriteLog}), a
 * {@code ShellJournal} so that a crash loses no command's changes ({@code ShellRecovery}). What
 * processes a command left running change later is followed, for both captures, by the store's one
 * {@code CommandJobs}, which each capture hands its processes to. Commands of one project take
 * turns ({@code CommandSlot}); {@code CommandMark} finds a command's processes again.
 *
 * <p>May use {@code checkpoint.lib}, {@code checkpoint.store}, {@code checkpoint.project} and
 * {@code dev.waymark.core.layer}, which knows nothing of checkpoints. It
 * records into a checkpoint only through {@code TabRecords} and {@code TabHistory}, which the
 * facade implements: it never sees a turn, a tree or the store.
 */
package dev.waymark.core.checkpoint.shell;
