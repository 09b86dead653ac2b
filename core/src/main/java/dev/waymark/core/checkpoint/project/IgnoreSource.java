package dev.waymark.core.checkpoint.project;

import org.eclipse.jgit.ignore.IgnoreNode;

/** One ignore file's rules, for paths below {@code prefix} (relative to the work tree, ending with {@code /}). */
record IgnoreSource(String prefix, IgnoreNode node, Exclusion kind) {}
