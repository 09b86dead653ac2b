package dev.waymark.core.checkpoint.shell;

import java.util.function.Supplier;

/** What comparing the project with a scan recorded: the changes, and the tree as it left it (built only when asked for). */
record Recorded(WorkTreeChanges changes, Supplier<Scan> after) {}
