package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Which automatic checkpoints lose their tags under a {@link RetentionPolicy}: past
 * {@code keepPerTab}, the oldest first, in batches of a tenth of the limit (each deletion
 * rewrites packed-refs); and any older than {@code maxAge}. Named saves, live and the files
 * checkpoint keep theirs. Decided in memory; the {@link CheckpointWriter} deletes the tags.
 */
final class Retention {
  private Retention() {}

  static List<Node> toUntag(List<Node> nodes, Node live, Node files, RetentionPolicy policy, Instant now) {
    Instant oldest = now.minus(policy.maxAge());
    List<Node> tagged = new ArrayList<>();
    int automatic = 0;
    for (Node n : nodes) {
      if (n.tag != null && n.saved.isEmpty()) {
        automatic++;
        if (n != live && n != files) {
          tagged.add(n);
        }
      }
    }
    int excess = automatic - policy.keepPerTab();
    if (excess > 0 && excess <= policy.keepPerTab() / 10) {
      excess = 0;
    }
    List<Node> doomed = new ArrayList<>();
    for (Node n : tagged) {
      if (excess > 0 || n.created.isBefore(oldest)) {
        doomed.add(n);
        excess--;
      }
    }
    return doomed;
  }
}
