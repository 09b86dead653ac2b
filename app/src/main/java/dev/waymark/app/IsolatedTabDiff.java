package dev.waymark.app;

import dev.waymark.core.agent.TabSession;
import java.io.PrintWriter;
import java.util.Optional;

/**
 * {@code waymark checkpoints diff} of an isolated tab: how its view differs from the project (what
 * a land would apply), rather than how the files differ from the live checkpoint. Its own code
 * path, apart from the diffs between checkpoints.
 */
final class IsolatedTabDiff {
  private IsolatedTabDiff() {}

  /** Prints the view's diff against the project when {@code tab} is isolated; empty when it is not. */
  static Optional<Integer> print(TabSession tab, PrintWriter out) {
    Optional<String> diff = tab.checkpoints().viewDiff();
    if (diff.isEmpty()) {
      return Optional.empty();
    }
    if (diff.get().isEmpty()) {
      out.println("The isolated tab's view holds no changes: it is the project as it is now.");
    } else {
      out.print(diff.get());
      out.flush(); // print does not flush, and the process ends with the command
    }
    return Optional.of(0);
  }
}
