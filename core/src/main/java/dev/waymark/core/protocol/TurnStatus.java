package dev.waymark.core.protocol;

/** Where a checkpoint's turn stands. Only the tab's start, {@code #0}, is born done. */
public enum TurnStatus {
  RUNNING,
  DONE,
  CANCELLED,
  FAILED
}
