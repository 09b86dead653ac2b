package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.shell.TabHistory;

/**
 * What the task classes of one tab's {@link CheckpointTree} work with, as the tree holds them at
 * the moment: the store's parts as this tab uses them (an isolated tab's until it lands), its
 * graph, its writer, and the tab as shell capture sees it. One record, so that a task is built the
 * same way whatever it needs.
 */
record TreeParts(StoreParts parts, String tabId, CheckpointGraph graph, CheckpointWriter writer, TabHistory history,
    TreeHost host) {}
