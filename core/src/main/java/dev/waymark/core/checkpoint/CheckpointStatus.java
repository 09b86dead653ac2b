package dev.waymark.core.checkpoint;

/** Where a checkpoint's turn stands. Only the tab's start, {@code #0}, is born done. */
public enum CheckpointStatus {
  RUNNING,
  DONE,
  CANCELLED,
  FAILED
}
