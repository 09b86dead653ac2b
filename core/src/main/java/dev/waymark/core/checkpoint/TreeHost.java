package dev.waymark.core.checkpoint;

import java.util.function.Function;

/**
 * What the tree's helpers that begin turns of their own ({@link TabIsolation} landing a view,
 * {@link TreeHistory} for shell capture) ask of it, besides what a turn does. They name this, not
 * {@link CheckpointTree}, which builds them: no ring.
 */
abstract class TreeHost extends TurnHost {
  abstract Turn begin();

  /** Refuses while a turn runs. */
  abstract void requireIdle(String what);

  /** The tab's isolation has ended (it landed): from here its files are the project's. */
  abstract void leaveView();

  abstract int filesAt();

  abstract boolean has(int number);

  /** Opens the finished checkpoint {@code #number} again for {@code work}, then commits it with the status it had. */
  abstract <T> T amend(int number, Function<Turn, T> work);
}
