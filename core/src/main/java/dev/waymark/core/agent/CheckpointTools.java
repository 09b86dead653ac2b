package dev.waymark.core.agent;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointAt;
import dev.waymark.core.checkpoint.CheckpointComparison;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.GitBranchExport;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ComparisonView;
import dev.waymark.core.protocol.ExportView;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * A tab's answers to {@code Compare}, {@code Take} and {@code Export}: checkpoints named by the
 * user ({@link CheckpointRef}) of this tab or of another tab of the session, whose tree is read
 * from its published snapshot ({@code peers}), never from its thread.
 */
final class CheckpointTools {
  /** Another tab's tree by its id or its place in the session (1 for the first), if the session has it. */
  interface Peers extends Function<String, Optional<TreeSnapshot>> {
    Peers NONE = tab -> Optional.empty();
  }

  private final CheckpointTree tree;
  private final Peers peers;
  private final IntFunction<String> prompts;

  CheckpointTools(CheckpointTree tree, Peers peers, IntFunction<String> prompts) {
    this.tree = tree;
    this.peers = peers;
    this.prompts = prompts;
  }

  /** What {@code ref} names, now. */
  CheckpointAt resolve(CheckpointRef ref) {
    TreeSnapshot at = ref.tab().isEmpty() || ref.tab().equals(tree.tabId()) ? tree.snapshot()
        : peers.apply(ref.tab()).orElseThrow(() -> new CheckpointException(CheckpointException.Kind.NOT_FOUND, "This session has no tab " + ref.tab()
            + " (name a tab by its id, or by its place: 1 for the first; `checkpoints list --tab ID` or the tab bar)."));
    String name = ref.checkpoint();
    if (ref.isNumber()) {
      return new CheckpointAt(at, Integer.parseInt(name));
    }
    if (name.equals("live")) {
      return new CheckpointAt(at, at.live());
    }
    return new CheckpointAt(at, at.checkpoints().stream().filter(c -> c.savedNames().contains(name))
        .mapToInt(Checkpoint::number).findFirst()
        .orElseThrow(() -> new CheckpointException(CheckpointException.Kind.NOT_FOUND, "Tab " + at.tabId() + " has no checkpoint or save named " + name
            + ".")));
  }

  /** {@code at} by number, as a later command must name it (live moves). */
  private CheckpointRef fixed(CheckpointAt at) {
    return new CheckpointRef(at.tabId().equals(tree.tabId()) ? "" : at.tabId(), Integer.toString(at.number()));
  }

  ComparisonView compare(Command.Compare c) {
    CheckpointAt from = resolve(c.from());
    CheckpointAt to = resolve(c.to());
    CheckpointComparison comparison = tree.comparison();
    List<ComparisonView.FileComparison> files = CheckpointComparison.deltas(from, to, new TreeSet<>(c.paths())).stream()
        .map(comparison::text)
        .map(t -> new ComparisonView.FileComparison(t.delta().path(), change(t.delta()), t.added(), t.removed(),
            t.binary(), t.header(), t.hunks()))
        .toList();
    return new ComparisonView(fixed(from), fixed(to), files);
  }

  private static ComparisonView.Change change(CheckpointComparison.Delta delta) {
    FileVersion from = delta.from();
    FileVersion to = delta.to();
    return !from.exists() ? ComparisonView.Change.ADDED : !to.exists() ? ComparisonView.Change.DELETED
        : ComparisonView.Change.MODIFIED;
  }

  /** A take and the words the conversation gets for it. */
  record Taken(RestoreResult result, String label, String told) {}

  Taken take(Command.Take c) {
    CheckpointAt from = resolve(c.from());
    CheckpointAt to = resolve(c.to());
    CheckpointRef side = fixed(c.toSide() ? to : from);
    String what = (c.hunk() < 0 ? c.path() : "hunk " + (c.hunk() + 1) + " of " + c.path()) + " from " + side;
    RestoreResult result = tree.take(from, to, c.path(), c.hunk(), c.toSide(), "Took " + what, c.force());
    return new Taken(result, "take " + what, "The user took " + what + ", as " + side + " holds it (from the diff of "
        + fixed(from) + " and " + fixed(to) + "), into the project, merged with every later change.");
  }

  ExportView export(Command.Export c) {
    CheckpointAt from = resolve(c.from() == null ? CheckpointRef.of(0) : c.from());
    CheckpointAt to = resolve(c.to() == null ? CheckpointRef.live() : c.to());
    GitBranchExport.Result r = tree.exporter().export(from, to, prompts, c.branch(), c.squash(), c.force());
    return new ExportView(r.branch(), r.base().map(id -> id.name()),
        r.commits().stream().map(m -> new ExportView.Commit(m.id().name(), m.checkpoints(), m.subject(), m.files())).toList(),
        r.replaced().map(id -> id.name()), r.skipped(), r.ignored());
  }
}
