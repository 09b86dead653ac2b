package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.FileRestore;
import dev.waymark.core.checkpoint.shell.TabHistory;
import dev.waymark.core.checkpoint.shell.ViewLanding;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * One tab's tree of checkpoints, and the only way to change the files it checkpointed.
 *
 * <p>{@code #0} is the tab's start. {@link #begin()} opens the next checkpoint as a child of the
 * live one; its turn records each file change, then {@link Turn#finish finishes}. The <em>live</em>
 * checkpoint is the one the conversation continues from; the <em>files</em> checkpoint is the one
 * the project's files reflect (the two differ only after a files-only or conversation-only
 * restore). The view cursor moves in memory only.
 *
 * <p>A façade over the parts: the {@link CheckpointGraph} (nodes, live, files, redo, the view),
 * the {@link RestorePlanner} and {@link FileRestore} (moving the files), the {@link TurnRecorder}
 * and {@link CheckpointWriter} (the running checkpoint, commits and tags), {@link CheckpointDiffs}
 * and {@link Retention}. The commands' bodies are task classes built per call from
 * {@link TreeParts} ({@link TreeRestores}, {@link TreeSaves}); {@link TabHold} says whether
 * the tree may act, {@link TreeHistory} is the tab as shell capture sees it.
 *
 * <p>Not thread-safe, and holds no lock: a tree is confined to the thread that holds its tab, the
 * tab's queue thread ({@code TabQueue} in {@code core.agent}), which lends it to the turn thread
 * for a turn and takes it back after; the hand-offs go through executors, which order memory.
 * Other threads read the immutable {@link TreeSnapshot} it publishes, so none waits while a git write
 * or gc runs for it.
 */
public final class CheckpointTree extends TreeHost {
  /** The store's parts as this tab uses them: an isolated tab's until it lands and goes on as a normal tab. */
  private StoreParts parts;
  private final StoreParts projectParts;
  private final String tabId;
  private final CheckpointGraph graph;
  private CheckpointWriter writer;
  private TurnRecorder recorder;
  private final TabIsolation isolation;
  private final boolean reconciled;
  private final TabHold hold;
  /** The turn begun or amended last: the running one while the recorder records its checkpoint. */
  private Turn last;

  CheckpointTree(StoreParts parts, String tabId) {
    this(parts, tabId, new CheckpointGraph(parts.clock().instant()), false);
  }

  CheckpointTree(StoreParts parts, String tabId, CheckpointGraph graph, boolean reconciled) {
    this.projectParts = parts;
    this.parts = parts.forTab(tabId); // an isolated tab's files are its view's
    this.tabId = tabId;
    this.graph = graph;
    this.writer = new CheckpointWriter(this.parts, tabId);
    this.recorder = new TurnRecorder(this.parts, tabId, writer);
    this.reconciled = reconciled;
    this.isolation = new TabIsolation(this);
    this.hold = new TabHold(tabId);
  }

  public TreeSnapshot snapshot() {
    return new TreeSnapshot(tabId, checkpoints(), live(), filesAt(), graph.redoList(), saves().commits());
  }

  /** Whether bringing the tree back moved it to where its last restore left the files (see {@link ShadowStore#restoreTab}). */
  boolean reconciled() {
    return reconciled;
  }

  public String tabId() {
    return tabId;
  }

  CheckpointTree holdingTab() {
    hold.take();
    return this;
  }

  /** Gives up the tab's hold so another process may open it (the tree then only reads); after the turn; see {@link TabHold}. */
  public void release() {
    hold.release(parts, recorder, history);
  }

  Path projectRoot() {
    return parts.project();
  }

  /** Where the isolated tab's view is kept; empty for a tab that works on the project itself. */
  public Optional<Path> viewDirectory() {
    return parts.view();
  }

  /** How many files the isolated tab's view holds that the project does not; 0 for a tab that is not isolated. */
  public int viewDiffers() {
    return isolation.viewDiffers();
  }

  /** Whether the isolated tab's view holds any change, a directory's too; false for a tab that is not isolated. */
  public boolean viewHoldsChanges() {
    return isolation.holdsChanges();
  }

  /** The paths of the isolated tab's view whose project file changed since the view first changed them; empty for a normal tab. */
  public List<String> viewChangedUnder() {
    return parts.view().map(dir -> parts.layers().views().changedUnder(dir)).orElse(List.of());
  }

  /** See {@link TabIsolation#land}: without {@code keepIsolated} the tab then goes on as a normal tab. */
  public ViewLanding.Landed land() {
    return isolation.land(false);
  }

  /** See {@link TabIsolation#land}. */
  public ViewLanding.Landed land(boolean keepIsolated) {
    return isolation.land(keepIsolated);
  }

  /** See {@link TabIsolation#discard}. */
  public List<String> discard() {
    return isolation.discard();
  }

  /** See {@link TabIsolation#viewDiff}. */
  public Optional<String> viewDiff() {
    return isolation.viewDiff();
  }

  /** See {@link TabIsolation#viewFiles}. */
  public Optional<List<ViewFileDiff>> viewFiles() {
    return isolation.viewFiles();
  }

  /** The tab's isolation has ended (it landed): from here its files are the project's. */
  void leaveView() {
    useParts(projectParts);
  }

  /** Refuses while a turn runs; for {@link TabIsolation}. */
  void requireIdle(String what) {
    requireNoTurn(what);
  }

  private void useParts(StoreParts next) {
    this.parts = next;
    this.writer = new CheckpointWriter(next, tabId);
    this.recorder = new TurnRecorder(next, tabId, writer);
  }

  /** Where the view cursor stands. */
  public record ViewPosition(int checkpoint, boolean live) {}

  // ---------------------------------------------------------------------------------- reading

  public Checkpoint checkpoint(int number) {
    return graph.node(number).snapshot();
  }

  public List<Checkpoint> checkpoints() {
    return graph.checkpoints();
  }

  public int live() {
    return graph.live().number;
  }

  /** The checkpoint the project's files reflect; equal to {@link #live()} but after a one-sided restore. */
  public int filesAt() {
    return graph.files().number;
  }

  /** The live path, {@code #0} first: whose messages make up the conversation. */
  public List<Integer> livePath() {
    return graph.livePath();
  }

  /** The checkpoint that {@link #redo()} would re-apply, if any. */
  public Optional<Integer> redoable() {
    return graph.redoable();
  }

  public Optional<Turn> running() {
    return Optional.ofNullable(last).filter(turn -> recorder.running().orElse(null) == turn.node);
  }

  // ----------------------------------------------------------------------------- browsing

  /**
   * For each checkpoint, the child browsing forward goes to: the one on the way to where live most
   * recently was. The view cursor that uses it moves over snapshots ({@code ViewCursor} in
   * {@code core.agent}), never the tree.
   */
  public Map<Integer, Integer> forwardLinks() {
    return graph.forwardLinks();
  }

  /** Opens checkpoint {@code #n} as a child of the live one; it becomes live, and redo is cleared. */
  public Turn begin() {
    requireNoTurn("start another turn");
    Turn turn = new Turn(this, graph.begin(parts.clock().instant()));
    recorder.started(turn.node);
    return last = turn;
  }

  @Override
  boolean withdraw(Node node) {
    if (recorder.running().orElse(null) != node || !graph.withdraw(node)) {
      return false;
    }
    recorder.withdrawn(node);
    last = null;
    return true;
  }

  /** Restores files and conversation to {@code #number}, then opens a new checkpoint under it. */
  public BranchResult branchFrom(int number) {
    return branchFrom(number, false);
  }

  /** As {@link #branchFrom(int)}; {@code force} overwrites later edits that clash (see {@link #goTo(int, boolean)}). */
  public BranchResult branchFrom(int number, boolean force) {
    RestoreResult restore = goTo(number, force);
    return new BranchResult(restore, restore.applied() ? Optional.of(begin()) : Optional.empty());
  }

  /** What {@link #branchFrom} did: the restore, and the new turn unless conflicts stopped it. */
  public record BranchResult(RestoreResult restore, Optional<Turn> turn) {}

  TurnRecorder recorder() {
    return recorder;
  }

  /**
   * Runs {@code ended}, on another thread, when the processes a sandboxed command of this tab left
   * running in its layer have all ended: then {@link #settleBackground}, run where nothing else
   * uses the tree, applies and records what they wrote. Once per layer; null stops it.
   */
  public void onBackgroundEnded(Runnable ended) {
    parts.jobs().onLayersEnded(tabId, ended);
  }

  /**
   * Applies to the project, and records in the checkpoint whose files are on disk, what the tab's
   * sandboxed commands' background processes wrote in their layers since the last time (a layer
   * whose processes all ended is then removed); nothing when no checkpoint's files are on disk.
   * Not while a turn runs: its end does the same.
   */
  public WorkTreeChanges settleBackground() {
    return parts.jobs().settleLayersAt(history);
  }

  /** Whether the tree has a checkpoint {@code #number}. */
  boolean has(int number) {
    return graph.exists(number);
  }

  /**
   * Opens the finished checkpoint {@code #number} again for {@code work} to record changes in,
   * then commits it with the status it had (see {@link TurnRecorder#amend}).
   */
  <T> T amend(int number, Function<Turn, T> work) {
    Turn amended = new Turn(this, graph.node(number));
    return recorder.amend(amended.node, () -> work.apply(last = amended));
  }

  /** The parts of the store this tree lives in. */
  StoreParts parts() {
    return parts;
  }

  /** See {@link CheckpointWriter#rescueCommand}. */
  String rescueCommand(Map<String, FileVersion> versions, int number) {
    return writer.rescueCommand(versions, number);
  }

  /** This tab as shell capture sees it: one instance per tree. */
  TabHistory history() {
    return history;
  }

  private final TabHistory history = new TreeHistory(this);

  FileState readProjectFile(String path) throws IOException {
    parts.workTree().refuseLinkedParent(path);
    return parts.workTree().readState(path);
  }

  Checkpoint finish(Node node, CheckpointStatus status) {
    recorder.finish(node, status);
    writer.untag(Retention.toUntag(graph.nodes(), graph.live(), graph.files(), parts.retention(), parts.clock().instant()));
    return node.snapshot();
  }

  // ------------------------------------------------------------------------ moving around

  /** Moves files and conversation back one checkpoint. */
  public RestoreResult undo() {
    return undo(false);
  }

  /** {@link #undo()}; with {@code force}, files whose later edits clash are overwritten (kept under a rescue tag). */
  public RestoreResult undo(boolean force) {
    requireNoTurn("undo");
    return restores().undo(force);
  }

  /** Moves files and conversation back to {@code #number}, which must come before the live checkpoint. */
  public RestoreResult undoTo(int number) {
    return undoTo(number, false);
  }

  public RestoreResult undoTo(int number, boolean force) {
    requireNoTurn("undo");
    return restores().undoTo(number, force);
  }

  /** Re-applies the checkpoint most recently undone. */
  public RestoreResult redo() {
    return redo(false);
  }

  public RestoreResult redo(boolean force) {
    requireNoTurn("redo");
    return restores().redo(force);
  }

  /** Moves files and conversation to any checkpoint, abandoned branches included. */
  public RestoreResult goTo(int number) {
    return goTo(number, false);
  }

  public RestoreResult goTo(int number, boolean force) {
    requireNoTurn("go to another checkpoint");
    return restores().goTo(number, force);
  }

  /** The checkpoint saved under {@code name} in this tab. */
  public int saved(String name) {
    return graph.saved(name);
  }

  /**
   * Restores {@code #number} in the given mode. With {@code force}, files whose later edits clash
   * are overwritten, and what was on disk is kept under a rescue tag.
   */
  public RestoreResult restore(int number, RestoreMode mode, boolean force) {
    requireNoTurn("restore");
    return restores().restore(number, mode, force);
  }

  /**
   * Takes back what checkpoints {@code #first} to {@code #last} (one path of the tree, on the live
   * path) changed, on the files as they are now, keeping every later change: a new checkpoint under
   * live. Only {@code paths} when some are given. A file a later checkpoint or someone else changed
   * is merged line by line; a clash stops it and names the files (nothing written), or with
   * {@code force} overwrites them and keeps what was there under a rescued tag.
   */
  public RestoreResult revert(int first, int last, Set<String> named, boolean force) {
    requireNoTurn("revert");
    return restores().revert(first, last, named, force);
  }

  /**
   * Puts {@code paths} back to how {@code #number} holds them (what {@code git show <tag>:post/PATH}
   * gives), every other file untouched: a new checkpoint under live. A path is one any checkpoint of
   * the tab changed; someone else's later edit is merged, a clash stops it as a restore does.
   */
  public RestoreResult restorePaths(int number, Set<String> named, boolean force) {
    requireNoTurn("restore");
    return restores().restorePaths(number, named, force);
  }

  /** What this tab's {@code --force} overwrote (and commands could not apply), kept under rescued tags; read only. */
  public RescuedVersions rescued() {
    return new RescuedVersions(parts.repo(), tabId);
  }

  /** How the files on disk differ from the versions rescued under {@code name}. */
  public CheckpointDiff rescuedDiff(String name) {
    RescuedVersions rescued = rescued();
    return new CheckpointDiffs(parts).againstDisk(live(), rescued.versions(rescued.find(name)));
  }

  /** Puts back the versions rescued under {@code name}, every other file untouched: a new checkpoint under live. */
  public RestoreResult restoreRescued(String name, boolean force) {
    requireNoTurn("restore");
    return restores().restoreRescued(name, force);
  }

  /** What this tree's task classes work with, as it holds it now: an isolated tab's parts change when it lands. */
  private TreeParts treeParts() {
    return new TreeParts(parts, tabId, graph, writer, history, this);
  }

  @Override
  void enterView() {
    useParts(projectParts.forTab(tabId));
  }

  @Override
  StoreParts projectParts() {
    return projectParts;
  }

  @Override
  RestoreResult moveBoth(Node target, boolean force) {
    return restores().moveBoth(target, force);
  }

  @Override
  RestoreResult moveInProject(Node target, boolean force) {
    return new TreeRestores(new TreeParts(projectParts, tabId, graph, new CheckpointWriter(projectParts, tabId), history,
        this)).plainMove(target, force);
  }

  private TreeRestores restores() {
    return new TreeRestores(treeParts());
  }

  private TreeSaves saves() {
    return new TreeSaves(treeParts());
  }

  // ---------------------------------------------------------------------------- diff, save

  /** How the files on disk differ from checkpoint {@code #number}, for the files the tab tracks there. */
  public CheckpointDiff diff(int number) {
    Node running = recorder.running().orElse(null);
    return new CheckpointDiffs(parts).againstDisk(number, graph.versionsAt(graph.node(number), running));
  }

  /** The lines added and removed by checkpoint {@code #number}'s own changes, per file. */
  public List<CheckpointDiff.FileDiff> changeDiffs(int number) {
    return new CheckpointDiffs(parts).ofChanges(graph.node(number));
  }

  /** Reads how two checkpoints of any tabs of this store differ ({@link CheckpointComparison}). */
  public CheckpointComparison comparison() {
    return new CheckpointComparison(parts.repo());
  }

  /**
   * Takes one file ({@code hunk} -1) or one hunk of the diff from {@code from} to {@code to}, as
   * the side {@code toSide} (else {@code from}) holds it, into the project: merged with later edits
   * as {@link #revert} is, a new checkpoint under live; a clash stops it unless {@code force}.
   */
  public RestoreResult take(CheckpointAt from, CheckpointAt to, String named, int hunk, boolean toSide, String action,
      boolean force) {
    requireNoTurn("take a change");
    return restores().take(from, to, named, hunk, toSide, action, force);
  }

  /** Writes paths of this store's checkpoints to branches of the user's repository ({@link GitBranchExport}). */
  public GitBranchExport exporter() {
    return new GitBranchExport(parts.repo(), parts.project());
  }

  /**
   * Tags the live checkpoint under {@code name} ({@code refs/tags/waymark/<tab>/saved/<name>}):
   * a commit whose {@code post/} tree holds every file the tab tracks as it is at live. Saves are
   * never pruned.
   */
  public Checkpoint save(String name) {
    return save(name, false);
  }

  /**
   * {@link #save(String)}; with {@code force}, a save of that name moves here from the checkpoint
   * it named (without, an existing name is refused).
   */
  public Checkpoint save(String name, boolean force) {
    requireNoTurn("save");
    return saves().save(name, force);
  }

  /** Deletes the save {@code name}; the checkpoint it named stays. Answers that checkpoint's number. */
  public int deleteSave(String name) {
    requireNoTurn("delete a save");
    return saves().deleteSave(name);
  }

  /** The tag of the save {@code name}: {@code refs/tags/waymark/<tab>/saved/<name>}. */
  public String saveRef(String name) {
    return writer.saveTag(name);
  }

  private void requireNoTurn(String what) {
    hold.requireNoTurn(recorder, what);
  }
}
