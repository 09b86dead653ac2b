package dev.waymark.core.workspace;

import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.CheckpointTree;

/** Makes the session of a tab from its tree and what it remembers: the application wires model, tools and settings. */
public interface TabFactory {
  TabSession create(CheckpointTree tree, TabMemory memory);
}
