package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointDiff;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.RestoreMode;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.ViewFileDiff;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.ChildFiles;
import dev.waymark.core.protocol.ChildRestore;
import dev.waymark.core.protocol.DiffView;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.protocol.RestoreScope;
import dev.waymark.core.protocol.TokenUsage;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.wording.Wording;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The boundary between the engine and the protocol: turns the engine's values (which hold JGit
 * ids and behaviour) into the protocol's plain ones, and the protocol's choices into the engine's.
 */
public final class ProtocolViews {
  private ProtocolViews() {}

  public static CheckpointView checkpoint(Checkpoint c) {
    return checkpoint(c, CheckpointTools.Peers.NONE);
  }

  /** {@code c}, with the files its subagents changed in their tabs, as {@code peers} finds them. */
  static CheckpointView checkpoint(Checkpoint c, CheckpointTools.Peers peers) {
    return new CheckpointView(c.number(), parent(c.parent()), status(c.status()), c.created(),
        c.changes().stream().map(FileChange::path).toList(), c.commit().map(ObjectId::name), c.tag(), c.savedNames(),
        subagentPaths(c, peers));
  }

  /** The paths the checkpoints {@code c}'s subagents made in their tabs changed, sorted, each once. */
  static List<String> subagentPaths(Checkpoint c, CheckpointTools.Peers peers) {
    Set<String> paths = new TreeSet<>();
    for (ChildLink link : c.children()) {
      peers.apply(link.tab()).ifPresent(child -> child.checkpoints().stream()
          .filter(k -> k.number() >= link.first() && k.number() <= link.last())
          .forEach(k -> k.changes().forEach(change -> paths.add(change.path()))));
    }
    return List.copyOf(paths);
  }

  public static TurnStatus status(CheckpointStatus status) {
    return switch (status) {
      case RUNNING -> TurnStatus.RUNNING;
      case DONE -> TurnStatus.DONE;
      case CANCELLED -> TurnStatus.CANCELLED;
      case FAILED -> TurnStatus.FAILED;
    };
  }

  public static DiffView diff(CheckpointDiff diff, boolean stat) {
    return new DiffView(diff.checkpoint(), diff.files().stream().map(ProtocolViews::fileDiff).toList(), false, stat);
  }

  /** An isolated tab's view against the project, at its live checkpoint: what a land would change. */
  public static DiffView view(int live, List<ViewFileDiff> files, boolean stat) {
    return new DiffView(live, files.stream().map(f -> new DiffView.FileDiff(f.path(), f.unified(), f.added(),
        f.removed(), f.binary())).toList(), true, stat);
  }

  private static DiffView.FileDiff fileDiff(CheckpointDiff.FileDiff f) {
    return new DiffView.FileDiff(f.path(), f.unified(), f.added(), f.removed(), f.binary());
  }

  public static RestoreOutcome restore(RestoreResult r) {
    return restore(r, List.of());
  }

  /** What a child's restore {@code r} did, for its parent's result. */
  static ChildFiles childFiles(RestoreResult r) {
    return new ChildFiles(r.applied(), r.from(), r.target(), r.written(), r.deleted(), r.merged(), r.conflicts(), r.rescueTag(),
        Wording.restored(r));
  }

  /** {@code r}, with what it did in the child tabs that moved with it. */
  public static RestoreOutcome restore(RestoreResult r, List<ChildRestore> children) {
    return new RestoreOutcome(r.applied(), r.from(), r.target(), r.written(), r.merged(), r.conflicts(), r.rescueTag(),
        r.livePath(), Wording.restored(r, children), children);
  }

  public static ToolCallView toolCall(ToolCall call) {
    return new ToolCallView(call.id(), call.name(), call.argumentsJson());
  }

  public static TokenUsage usage(ChatResponse.Usage usage) {
    return new TokenUsage(usage.inputTokens(), usage.outputTokens(), usage.cacheReadTokens(), usage.cacheWriteTokens());
  }

  public static RestoreMode mode(RestoreScope scope) {
    return switch (scope) {
      case BOTH -> RestoreMode.BOTH;
      case FILES -> RestoreMode.FILES;
      case CONVERSATION -> RestoreMode.CONVERSATION;
    };
  }

  /** The engine marks {@code #0}'s missing parent with a negative number; the protocol with an empty one. */
  static OptionalInt parent(int parent) {
    return parent < 0 ? OptionalInt.empty() : OptionalInt.of(parent);
  }

  /** One line per checkpoint of {@code tree}, {@code #0} first; {@code prompts} gives the prompt that opened each. */
  static List<CheckpointSummary> summaries(CheckpointTree tree, IntFunction<String> prompts, CheckpointTools.Peers peers) {
    Set<Integer> onPath = Set.copyOf(tree.livePath());
    List<CheckpointSummary> all = new ArrayList<>();
    for (Checkpoint c : tree.checkpoints()) {
      int added = 0;
      int removed = 0;
      List<CheckpointDiff.FileDiff> diffs = c.changedFiles() ? tree.changeDiffs(c.number()) : List.of();
      for (CheckpointDiff.FileDiff diff : diffs) {
        added += diff.added();
        removed += diff.removed();
      }
      all.add(new CheckpointSummary(c.number(), parent(c.parent()), status(c.status()), c.created(),
          prompts.apply(c.number()), checkpoint(c, peers).allChangedPaths().size(), added, removed, onPath.contains(c.number()), c.tag(),
          c.savedNames()));
    }
    return all;
  }
}
