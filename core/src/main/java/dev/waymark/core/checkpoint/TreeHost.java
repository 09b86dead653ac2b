package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import java.util.function.Function;

/**
 * What the tree's helpers that begin turns of their own ({@link TabIsolation} landing a view,
 * {@link TreeHistory} for shell capture, {@link LandMoves} undoing and redoing a land) ask of it,
 * besides what a turn does. They name this, not
 * {@link CheckpointTree}, which builds them: no ring.
 */
abstract class TreeHost extends TurnHost {
  abstract Turn begin();

  /** Refuses while a turn runs. */
  abstract void requireIdle(String what);

  /** The tab's isolation has ended (it landed): from here its files are the project's. */
  abstract void leaveView();

  /** The tab is isolated again (a land undone): from here its files are its view's. */
  abstract void enterView();

  /** The store's parts as a tab that works on the project itself uses them. */
  abstract StoreParts projectParts();

  /** Files and conversation to {@code target} in the tab's files as they are now (its view's while isolated), lands taken as lands. */
  abstract RestoreResult moveBoth(Node target, boolean force);

  /** Files and conversation to {@code target} in the project itself, no land on the way, whether or not the tab is isolated. */
  abstract RestoreResult moveInProject(Node target, boolean force);

  abstract int filesAt();

  abstract boolean has(int number);

  /** Opens the finished checkpoint {@code #number} again for {@code work}, then commits it with the status it had. */
  abstract <T> T amend(int number, Function<Turn, T> work);
}
