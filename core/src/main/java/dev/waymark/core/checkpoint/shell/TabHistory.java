package dev.waymark.core.checkpoint.shell;

import java.util.function.Function;

/**
 * A tab's checkpoints, as shell capture needs them to record what a command's background
 * processes (or a command a crash interrupted) changed after its checkpoint was finished. The
 * same tab gives the same instance, so capture may compare them.
 */
public interface TabHistory {
  String tabId();

  /** The checkpoint whose files the project holds now. */
  int filesAt();

  /** Whether the tab has a checkpoint {@code #number}. */
  boolean has(int number);

  /** Opens the finished checkpoint {@code #number} again for {@code work}, then commits it as it was. */
  <T> T amend(int number, Function<TabRecords, T> work);

  /** Records {@code work} in a new checkpoint of its own, which ends cancelled (nobody asked for it). */
  <T> T inNewCancelled(Function<TabRecords, T> work);
}
