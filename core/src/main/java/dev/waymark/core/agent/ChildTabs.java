package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.protocol.ChildRestore;
import java.util.List;

/**
 * How a tab reaches the tabs its checkpoints own (its subagents'), to move them with a checkpoint
 * it leaves or comes back to: one call for one undo, redo or goto, which returns once each child has
 * moved (or could not), so that the parent's result says what happened in every tab.
 */
public interface ChildTabs {
  /** Moves no tab: a tab whose subagents nobody follows. */
  ChildTabs NONE = new ChildTabs() {
    @Override
    public List<ChildRestore> move(List<Move> moves, boolean force) {
      return List.of();
    }

    @Override
    public void putBack(List<ChildRestore> moved) {
      // moved none
    }
  };

  /** One child to move: back before {@code link}'s first checkpoint, or ({@code back} false) to where it was. */
  record Move(ChildLink link, boolean back) {}

  /** Moves each child in order ({@code force}: overwrite later edits that clash, as the parent's restore did). */
  List<ChildRestore> move(List<Move> moves, boolean force);

  /** Puts each child that {@code moved} back where it stood: another child's refusal undoes the whole move. */
  void putBack(List<ChildRestore> moved);
}
