package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.shell.TabHistory;
import dev.waymark.core.checkpoint.shell.TabRecords;
import java.util.function.Function;

/**
 * One tab's {@link CheckpointTree} as shell capture sees it: the few acts a capture needs (amend
 * a finished checkpoint, or record in a new cancelled one), so that the capture never names a tree
 * or a turn. One instance per tree.
 */
final class TreeHistory implements TabHistory {
  private final TreeHost tree;

  TreeHistory(TreeHost tree) {
    this.tree = tree;
  }

  @Override
  public String tabId() {
    return tree.tabId();
  }

  @Override
  public int filesAt() {
    return tree.filesAt();
  }

  @Override
  public boolean has(int number) {
    return tree.has(number);
  }

  @Override
  public <T> T amend(int number, Function<TabRecords, T> work) {
    return tree.amend(number, work::apply);
  }

  @Override
  public <T> T inNewCancelled(Function<TabRecords, T> work) {
    Turn turn = tree.begin();
    T result = work.apply(turn);
    turn.finish(CheckpointStatus.CANCELLED);
    return result;
  }
}
