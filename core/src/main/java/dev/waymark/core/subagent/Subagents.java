package dev.waymark.core.subagent;

import dev.waymark.core.model.Cancellation;
import java.util.List;

/** The seam the {@code task} tool calls: runs a subagent in a new tab and waits for its answer. */
public interface Subagents {
  /**
   * One {@code task} call: from which tab and checkpoint, with what prompt, as which agent, and
   * whether in an isolated tab (its own view of the project, landed when it finishes).
   */
  record Request(String parentTab, int parentCheckpoint, String description, String prompt, String agent,
      boolean isolated) {}

  /** How a subagent ended, told to the parent's model. */
  enum Ending { DONE, FAILED, STOPPED }

  /**
   * What a subagent came back with: its tab, the checkpoints its turns made there (the parent's
   * checkpoint records them, and its undo takes them back), how it ended and its answer or why not.
   */
  record Outcome(String childTab, List<Integer> checkpoints, Ending ending, String text) {
    public Outcome {
      checkpoints = List.copyOf(checkpoints);
    }
  }

  /** Runs {@code request} to its end; {@code cancellation} (the parent's turn cancelled) stops the subagent. */
  Outcome run(Request request, Cancellation cancellation);

  /** The agents a {@code task} may name. */
  List<AgentDefinition> agents();
}
