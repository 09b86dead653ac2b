package dev.waymark.core.agent;

/**
 * What a tab's tasks change as they go and read of each other, beside the tree and the
 * conversation: one small mutable place, so that each task holds the same flags.
 */
final class TabState {
  /** Set once the tab closes: no turn starts after it, and ended background jobs are not settled. */
  volatile boolean closing;
  /** Confined to the queue thread: the next snapshot shows the view back on live. */
  boolean viewToLive;
  /** The tokens the live conversation takes, as last counted; -1 before any count. */
  volatile long contextTokens = -1;
  /** Whether the last turn compacted: the next may not compact by itself, so a summary too long cannot loop. */
  volatile boolean lastTurnCompacted;
  /** How the tab finds the other tabs of its session, for the commands that name their checkpoints. */
  volatile CheckpointTools.Peers peers = CheckpointTools.Peers.NONE;
  /** How the tab reaches the tabs its checkpoints own, to move them with it. */
  volatile ChildTabs children = ChildTabs.NONE;
}
