package dev.waymark.core.protocol;

import java.util.List;
import java.util.Optional;

/**
 * What a parent's undo, redo or goto did in one tab its subagent worked in: the child moves with
 * the parent's checkpoint, in the same operation, and the parent's result lists each.
 *
 * @param tab the child tab's id
 * @param parentNumber the parent tab's place among the open tabs (1 for the first), as the tab bar marks the child
 * @param title the child tab's title
 * @param back true when the parent's checkpoint was left (the child went back before its subagent's first checkpoint)
 * @param state whether it moved, and if not, why
 * @param result what the child's own restore did, when it moved or was refused
 * @param ownTurns the child's checkpoints moved too that the subagent did not make (the user's own turns in it)
 * @param stopped whether a turn still running there (or waiting for approval) was stopped
 * @param withdrawn whether approvals left waiting in the checkpoints it left were withdrawn for good
 * @param failure what went wrong, when {@code state} is {@code FAILED}
 */
public record ChildRestore(String tab, int parentNumber, String title, boolean back, State state,
    Optional<ChildFiles> result, List<Integer> ownTurns, boolean stopped, boolean withdrawn,
    String failure) {
  /** Whether the child moved. */
  public enum State {
    MOVED,
    /** It stood where the parent's checkpoint wants it already (the user moved it there). */
    ALREADY_THERE,
    /** The tab is not open in this process (closed, or not loaded). */
    NOT_OPEN,
    /** Its restore was refused (later edits clash) or failed. */
    FAILED
  }

  public ChildRestore {
    ownTurns = List.copyOf(ownTurns);
  }

  /** Whether its restore was refused (later edits clash): then none of the tabs moves. */
  public boolean refused() {
    return state == State.FAILED && result.isPresent() && !result.get().applied();
  }

  /** This, named as the tab bar shows it. */
  public ChildRestore named(int number, String tabTitle) {
    return new ChildRestore(tab, number, tabTitle, back, state, result, ownTurns, stopped, withdrawn, failure);
  }

  /** A child that did not move, for {@code why}. */
  public static ChildRestore notMoved(String tab, boolean back, State why, String failure) {
    return new ChildRestore(tab, 0, "", back, why, Optional.empty(), List.of(), false, false, failure);
  }
}
