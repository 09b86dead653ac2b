package dev.waymark.core.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.diff.EditList;
import org.eclipse.jgit.diff.HistogramDiff;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One tab's tree of checkpoints, and the only way to change the files it checkpointed.
 *
 * <p>{@code #0} is the tab's start. {@link #begin()} opens the next checkpoint as a child of the
 * live one; its turn records each file change, then {@link Turn#finish finishes}. The <em>live</em>
 * checkpoint is the one the conversation continues from; the <em>files</em> checkpoint is the one
 * the project's files reflect (the two differ only after a files-only or conversation-only
 * restore). The view cursor moves in memory only.
 *
 * <p>Moving the files from one checkpoint to another writes exactly the paths that the
 * checkpoints between them changed. For each path, the tab knows the version it expects on disk
 * (its own, at the files checkpoint) and the version the target wants. If the disk holds
 * neither, someone else changed the file since: the change is carried over by a three-way merge,
 * and where that clashes nothing is written at all unless the restore is forced.
 *
 * <p>Thread-safe: every method is synchronized on the tree.
 */
public final class CheckpointTree {
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointTree.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern SAVE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private final ShadowStore store;
  private final String tabId;
  private final List<Node> nodes = new ArrayList<>();
  private final Deque<Node> redo = new ArrayDeque<>();
  private Node live;
  private Node files;
  private Node viewed; // null while the view is live
  private Turn running;
  private boolean reconciled;
  /** This tree holds its store's lock on the tab (it was opened to act on it, not only to read). */
  private boolean holdsTab;
  private boolean released;

  CheckpointTree(ShadowStore store, String tabId) {
    this.store = store;
    this.tabId = tabId;
    Node start = new Node(0, null, CheckpointStatus.DONE, store.clock().instant());
    nodes.add(start);
    live = start;
    files = start;
  }

  /**
   * A tree rebuilt from the manifests of a tab's tags: every checkpoint that changed files, and
   * the checkpoints on their paths. Live is the highest-numbered one.
   */
  static CheckpointTree rebuild(ShadowStore store, String tabId, List<StoredCheckpoint> stored, Map<Integer, Set<String>> saves) {
    CheckpointTree tree = new CheckpointTree(store, tabId);
    Map<Integer, StoredCheckpoint> byNumber = new TreeMap<>();
    Map<Integer, Integer> parents = new TreeMap<>();
    for (StoredCheckpoint cp : stored) {
      byNumber.put(cp.number(), cp);
      List<Integer> path = cp.path();
      for (int i = 1; i < path.size(); i++) {
        parents.putIfAbsent(path.get(i), path.get(i - 1));
      }
      parents.putIfAbsent(cp.number(), Math.max(cp.parent(), 0));
    }
    for (var entry : parents.entrySet()) {
      int number = entry.getKey();
      while (tree.nodes.size() <= number) {
        tree.nodes.add(null);
      }
      Node parent = tree.nodes.get(entry.getValue());
      StoredCheckpoint cp = byNumber.get(number);
      Instant created = cp != null ? cp.created() : store.clock().instant();
      Node node = new Node(number, parent == null ? tree.nodes.get(0) : parent,
          cp != null ? interrupted(cp.status()) : CheckpointStatus.DONE, created);
      if (cp != null) {
        for (FileChange change : cp.changes()) {
          node.changes.put(change.path(), change);
        }
        node.commit = cp.commit();
        node.tag = cp.tag();
      }
      node.saved.addAll(saves.getOrDefault(number, Set.of()));
      tree.nodes.set(number, node);
    }
    tree.nodes.get(0).saved.addAll(saves.getOrDefault(0, Set.of()));
    Node last = tree.nodes.get(tree.nodes.size() - 1);
    tree.live = last;
    tree.files = last;
    linkTimeline(last);
    return tree;
  }

  /**
   * Everything needed to bring this tree back later or in another process (sessions): every
   * checkpoint, where live, the files and redo stand, and the commits of the named saves.
   *
   * @param redo the checkpoints redo would re-apply, next first
   * @param saves the commit of each named save, by name
   */
  public record Snapshot(String tabId, List<Checkpoint> checkpoints, int live, int filesAt, List<Integer> redo,
      Map<String, ObjectId> saves) {
    public Snapshot {
      checkpoints = List.copyOf(checkpoints);
      redo = List.copyOf(redo);
      saves = Map.copyOf(saves);
    }
  }

  public synchronized Snapshot snapshot() {
    List<Integer> redoList = new ArrayList<>();
    for (Node n : redo) {
      redoList.add(n.number);
    }
    Map<String, ObjectId> saves = new TreeMap<>();
    for (Node n : nodes) {
      if (n != null) {
        for (String name : n.saved) {
          ObjectId commit = store.repo().resolve(ShadowStore.tagPrefix(tabId) + "saved/" + name);
          if (commit != null) {
            saves.put(name, commit);
          }
        }
      }
    }
    return new Snapshot(tabId, checkpoints(), live.number, files.number, redoList, saves);
  }

  /**
   * A tree brought back from a snapshot. Checkpoints in {@code lost} keep their place and status
   * but not their file changes (their commit is gone); a checkpoint that was running is cancelled.
   */
  static CheckpointTree restore(ShadowStore store, Snapshot snapshot, Set<Integer> lost, List<StoredCheckpoint> newer) {
    CheckpointTree tree = new CheckpointTree(store, snapshot.tabId());
    for (Checkpoint cp : snapshot.checkpoints()) {
      if (cp.number() == 0) {
        Node start = new Node(0, null, CheckpointStatus.DONE, cp.created());
        start.saved.addAll(cp.savedNames());
        tree.nodes.set(0, start);
        continue;
      }
      while (tree.nodes.size() <= cp.number()) {
        tree.nodes.add(null);
      }
      Node parent = cp.parent() >= 0 && cp.parent() < tree.nodes.size() && tree.nodes.get(cp.parent()) != null
          ? tree.nodes.get(cp.parent()) : tree.nodes.get(0);
      Node node = new Node(cp.number(), parent, interrupted(cp.status()), cp.created());
      for (FileChange change : cp.changes()) {
        node.changes.put(change.path(), change);
      }
      if (!lost.contains(cp.number())) {
        node.commit = cp.commit().orElse(null);
        node.tag = cp.tag().orElse(null);
      } else {
        // The changes are kept (the session keeps naming them) but no restore may cross them.
        node.lost = !cp.changes().isEmpty();
      }
      node.saved.addAll(cp.savedNames());
      tree.nodes.set(cp.number(), node);
    }
    tree.live = tree.nodeOrStart(snapshot.live());
    tree.files = tree.nodeOrStart(snapshot.filesAt());
    List<Integer> redoList = snapshot.redo();
    Optional<ShadowStore.TabPosition> moved = store.lastMove(snapshot.tabId());
    if (moved.isPresent() && moved.get().fromLive() == snapshot.live() && moved.get().fromFiles() == snapshot.filesAt()
        && tree.exists(moved.get().live()) && tree.exists(moved.get().files())) {
      // The last restore of this tab ended after the session was saved: the files show its target.
      tree.live = tree.nodes.get(moved.get().live());
      tree.files = tree.nodes.get(moved.get().files());
      redoList = moved.get().redo();
      tree.reconciled = true;
    }
    for (int i = redoList.size() - 1; i >= 0; i--) {
      int n = redoList.get(i);
      if (tree.exists(n)) {
        tree.redo.push(tree.nodes.get(n));
      }
    }
    for (StoredCheckpoint cp : newer) {
      tree.adopt(cp);
    }
    linkTimeline(tree.live);
    return tree;
  }

  /**
   * Takes in a checkpoint found under the tab's tags that the snapshot does not know (or knew
   * only as running). One made from live after the snapshot was taken is what the files show
   * now, so live moves to it.
   */
  private void adopt(StoredCheckpoint cp) {
    while (nodes.size() <= cp.number()) {
      nodes.add(null);
    }
    Node existing = nodes.get(cp.number());
    Node node;
    if (existing != null) {
      node = existing;
      node.status = interrupted(cp.status());
      node.changes.clear();
    } else {
      Node parent = null;
      for (int i = cp.path().size() - 1; i >= 0 && parent == null; i--) {
        int n = cp.path().get(i);
        parent = n >= 0 && n < nodes.size() && n != cp.number() ? nodes.get(n) : null;
      }
      if (parent == null && cp.parent() >= 0 && cp.parent() < nodes.size()) {
        parent = nodes.get(cp.parent());
      }
      node = new Node(cp.number(), parent == null ? nodes.get(0) : parent, interrupted(cp.status()), cp.created());
      nodes.set(cp.number(), node);
      if (live == node.parent) {
        live = node;
        files = node;
        redo.clear();
      }
    }
    for (FileChange change : cp.changes()) {
      node.changes.put(change.path(), change);
    }
    node.commit = cp.commit();
    node.tag = cp.tag();
  }

  /** A checkpoint still running when Waymark stopped ends as cancelled: its turn did not finish. */
  private static CheckpointStatus interrupted(CheckpointStatus status) {
    return status == CheckpointStatus.RUNNING ? CheckpointStatus.CANCELLED : status;
  }

  private boolean exists(int number) {
    return number >= 0 && number < nodes.size() && nodes.get(number) != null;
  }

  /** Whether bringing the tree back moved it to where its last restore left the files (see {@link #restore}). */
  boolean reconciled() {
    return reconciled;
  }

  private Node nodeOrStart(int number) {
    return number >= 0 && number < nodes.size() && nodes.get(number) != null ? nodes.get(number) : nodes.get(0);
  }

  /** What a checkpoint tag's manifest says. */
  record StoredCheckpoint(int number, int parent, List<Integer> path, CheckpointStatus status, Instant created,
      List<FileChange> changes, ObjectId commit, String tag) {}

  public String tabId() {
    return tabId;
  }

  synchronized CheckpointTree holdingTab() {
    holdsTab = true;
    return this;
  }

  /**
   * Gives up this tree's hold on the tab (when its session closes), so that another process may
   * open it; once released the tree only reads: a turn, a restore or a save is refused. A running
   * turn keeps the hold: call this once it has ended.
   */
  public synchronized void release() {
    if (running != null) {
      throw new CheckpointException("Checkpoint #" + running.number() + " is still running; tab " + tabId
          + " stays held until it ends.");
    }
    if (holdsTab && !released) {
      store.releaseTab(tabId);
    }
    released = true;
  }

  java.nio.file.Path projectRoot() {
    return store.projectDirectory();
  }

  /** Where the view cursor stands. */
  public record ViewPosition(int checkpoint, boolean live) {}

  // ---------------------------------------------------------------------------------- reading

  public synchronized Checkpoint checkpoint(int number) {
    return node(number).snapshot(tabId);
  }

  public synchronized List<Checkpoint> checkpoints() {
    List<Checkpoint> all = new ArrayList<>(nodes.size());
    for (Node n : nodes) {
      if (n != null) {
        all.add(n.snapshot(tabId));
      }
    }
    return all;
  }

  public synchronized int live() {
    return live.number;
  }

  /** The checkpoint the project's files reflect; equal to {@link #live()} but after a one-sided restore. */
  public synchronized int filesAt() {
    return files.number;
  }

  /** The live path, {@code #0} first: whose messages make up the conversation. */
  public synchronized List<Integer> livePath() {
    return pathOf(live);
  }

  /** The checkpoint that {@link #redo()} would re-apply, if any. */
  public synchronized Optional<Integer> redoable() {
    return redo.isEmpty() ? Optional.empty() : Optional.of(redo.peek().number);
  }

  public synchronized Optional<Turn> running() {
    return Optional.ofNullable(running);
  }

  // ----------------------------------------------------------------------------- the cursor

  public synchronized ViewPosition view() {
    return viewed == null ? new ViewPosition(live.number, true) : new ViewPosition(viewed.number, false);
  }

  /** One checkpoint back from the viewed one; stays on {@code #0}. */
  public synchronized ViewPosition viewBack() {
    Node from = viewed == null ? live : viewed;
    if (from.parent != null) {
      viewed = from.parent == live ? null : from.parent;
    }
    return view();
  }

  /** One checkpoint forward toward live; forward past the last returns to live. */
  public synchronized ViewPosition viewForward() {
    if (viewed != null) {
      Node next = viewed.next;
      viewed = next == null || next == live ? null : next;
    }
    return view();
  }

  public synchronized ViewPosition viewAt(int number) {
    Node target = node(number);
    viewed = target == live ? null : target;
    return view();
  }

  public synchronized ViewPosition viewLive() {
    viewed = null;
    return view();
  }

  // ------------------------------------------------------------------------------- turns

  /** Opens checkpoint {@code #n} as a child of the live one; it becomes live, and redo is cleared. */
  public synchronized Turn begin() {
    requireNoTurn("start another turn");
    Node node = new Node(nodes.size(), live, CheckpointStatus.RUNNING, store.clock().instant());
    // After a one-sided restore the files are not live's: the new checkpoint starts from them,
    // so it holds the difference from live to the files as its own change (undo writes it back).
    if (files != live) {
      FileRestore.plan(live, files).forEach((path, planned) ->
          node.changes.put(path, new FileChange(path, planned.base(), planned.target())));
    }
    nodes.add(node);
    live = node;
    files = node;
    viewed = null;
    redo.clear();
    linkTimeline(node);
    running = new Turn(this, node);
    return running;
  }

  /** Restores files and conversation to {@code #number}, then opens a new checkpoint under it. */
  public synchronized BranchResult branchFrom(int number) {
    RestoreResult restore = goTo(number);
    return new BranchResult(restore, restore.applied() ? Optional.of(begin()) : Optional.empty());
  }

  /** What {@link #branchFrom} did: the restore, and the new turn unless conflicts stopped it. */
  public record BranchResult(RestoreResult restore, Optional<Turn> turn) {}

  synchronized void record(Node node, String path, FileState before, FileState after) {
    checkRecordable(node, path);
    List<FileVersion> versions = store.repo().insert(List.of(before, after));
    fold(node, path, versions.get(0), versions.get(1));
  }

  /**
   * Records a change whose "before" is already stored (the shell change tracker's cached blob);
   * returns the stored "after".
   */
  synchronized FileVersion record(Node node, String path, FileVersion before, FileState after) {
    checkRecordable(node, path);
    if (before.exists() && !store.repo().has(before.blob())) {
      throw new CheckpointException("The earlier content of " + path + " (blob " + before.blob().name()
          + ") is not in the shadow repository");
    }
    FileVersion last = store.repo().insert(List.of(after)).get(0);
    fold(node, path, before, last);
    return last;
  }

  /**
   * Records many changes whose versions are all stored already (a shell command's, found by the
   * change tracker); returns, by path, why a change could not be recorded. A deleted file below
   * what is now a link is recorded: nothing is read through the link, and undo takes the link
   * away before it brings the file back.
   */
  synchronized Map<String, String> recordStored(Node node, List<FileChange> changes) {
    Map<String, String> refused = new java.util.LinkedHashMap<>();
    for (FileChange change : changes) {
      try {
        if (change.after().exists()) {
          checkRecordable(node, change.path());
        } else {
          checkRunning(node);
          WorkTree.checkPath(change.path());
        }
        fold(node, change.path(), change.before(), change.after());
      } catch (CheckpointException e) {
        refused.put(change.path(), e.getMessage());
      }
    }
    return refused;
  }

  /**
   * Opens the finished checkpoint {@code #number} again for {@code work} to record changes in,
   * then commits it with the status it had: how a shell command's changes that a killed process
   * could not record are added to their checkpoint when the tab is opened again.
   */
  /** Whether the tree has a checkpoint {@code #number}. */
  synchronized boolean has(int number) {
    return nodes.stream().anyMatch(n -> n.number == number);
  }

  synchronized <T> T amend(int number, java.util.function.Function<Turn, T> work) {
    if (running != null) {
      throw new CheckpointException("Checkpoint #" + running.number() + " is running; nothing can be amended now.");
    }
    Node node = node(number);
    running = new Turn(this, node);
    try {
      T result = work.apply(running);
      if (!node.changes.isEmpty()) {
        writeCommit(node, node.status);
        store.checkpointWritten();
      }
      return result;
    } finally {
      running = null;
    }
  }

  private void checkRunning(Node node) {
    if (running == null || running.node != node) {
      throw new CheckpointException("Checkpoint #" + node.number + " is finished; it records no more changes.");
    }
  }

  private void checkRecordable(Node node, String path) {
    if (running == null || running.node != node) {
      throw new CheckpointException("Checkpoint #" + node.number + " is finished; it records no more changes.");
    }
    WorkTree.checkPath(path);
    try {
      store.workTree().refuseLinkedParent(path);
    } catch (IOException e) {
      throw new CheckpointException("Could not check " + path + ": " + e.getMessage(), e);
    }
  }

  /**
   * Records a change before it is made and keeps it under the running checkpoint's tag; returns
   * what the checkpoint held for the path before, for {@link #withdraw}. On failure nothing is
   * recorded.
   */
  synchronized Optional<FileChange> recordAhead(Node node, String path, FileState before, FileState after) {
    Optional<FileChange> previous = Optional.ofNullable(node.changes.get(path));
    record(node, path, before, after);
    try {
      persist(node);
    } catch (RuntimeException e) {
      putChange(node, path, previous);
      throw e;
    }
    store.changeTracker().writeLog().append(tabId, path,
        after.exists() ? new FileVersion(after.kind(), store.repo().hash(after), after.mode()) : FileVersion.ABSENT, store.clock().millis());
    return previous;
  }

  /** Takes back a change recorded ahead that was then not made; the tag follows when it can. */
  synchronized void withdraw(Node node, String path, Optional<FileChange> previous) {
    putChange(node, path, previous);
    try {
      persist(node);
    } catch (RuntimeException e) {
      // The tag may still name the change; a restore that finds the file as it was skips it.
      LOG.warn("could not update the running checkpoint #{} after a change to {} was not made", node.number, path, e);
    }
  }

  private static void putChange(Node node, String path, Optional<FileChange> previous) {
    if (previous.isPresent()) {
      node.changes.put(path, previous.get());
    } else {
      node.changes.remove(path);
    }
  }

  private static void fold(Node node, String path, FileVersion before, FileVersion after) {
    FileChange earlier = node.changes.get(path);
    FileVersion first = earlier == null ? before : earlier.before();
    if (first.equals(after)) {
      node.changes.remove(path);
    } else {
      node.changes.put(path, new FileChange(path, first, after));
    }
  }

  ShadowStore store() {
    return store;
  }

  FileState readProjectFile(String path) throws IOException {
    store.workTree().refuseLinkedParent(path);
    return store.workTree().readState(path);
  }

  synchronized Checkpoint finish(Node node, CheckpointStatus status) {
    if (running == null || running.node != node) {
      throw new CheckpointException("Checkpoint #" + node.number + " is finished already.");
    }
    if (status == CheckpointStatus.RUNNING) {
      throw new IllegalArgumentException("finish with done, cancelled or failed");
    }
    try {
      if (!node.changes.isEmpty()) {
        writeCommit(node, status);
        store.checkpointWritten();
      } else {
        dropRunningTag(node);
      }
      node.status = status;
    } finally {
      running = null;
    }
    prune();
    return node.snapshot(tabId);
  }

  /**
   * Writes what the running checkpoint has recorded so far under its tag (status running), so
   * that a crash or a kill in the middle of the turn loses none of it: the next start finds the
   * tag. A checkpoint whose changes folded back to nothing loses its tag.
   */
  synchronized void persist(Node node) {
    if (running == null || running.node != node) {
      throw new CheckpointException("Checkpoint #" + node.number + " is finished; there is nothing running to keep.");
    }
    if (node.changes.isEmpty()) {
      dropRunningTag(node);
    } else {
      writeCommit(node, CheckpointStatus.RUNNING);
    }
  }

  private void dropRunningTag(Node node) {
    if (node.tag != null) {
      store.repo().deleteRefs(List.of(node.tag));
      node.tag = null;
      node.commit = null;
    }
  }

  private void writeCommit(Node node, CheckpointStatus status) {
    List<ShadowRepository.TreeEntry> entries = new ArrayList<>();
    ObjectNode manifest = manifest(node.number, status);
    ArrayNode changes = manifest.putArray("changes");
    for (FileChange change : node.changes.values()) {
      if (change.before().exists()) {
        entries.add(new ShadowRepository.TreeEntry("pre/" + change.path(), change.before()));
      }
      if (change.after().exists()) {
        entries.add(new ShadowRepository.TreeEntry("post/" + change.path(), change.after()));
      }
      ObjectNode c = changes.addObject();
      c.put("path", change.path());
      putVersion(c.putObject("before"), change.before());
      putVersion(c.putObject("after"), change.after());
    }
    String tag = ShadowStore.tagPrefix(tabId) + node.number;
    node.commit = store.repo().commitAndTag(entries, bytes(manifest), parentCommits(node.parent),
        "waymark " + tabId + " #" + node.number + ": " + node.changes.size() + " file(s)"
            + (status == CheckpointStatus.RUNNING ? " so far" : "") + "\n",
        node.created, tag, node.tag == null ? null : node.commit);
    node.tag = tag;
  }

  private ObjectNode manifest(int number, CheckpointStatus status) {
    ObjectNode manifest = JSON.createObjectNode();
    manifest.put("format", 1);
    manifest.put("tab", tabId);
    manifest.put("checkpoint", number);
    Node n = node(number);
    manifest.put("parent", n.parent == null ? -1 : n.parent.number);
    ArrayNode ancestry = manifest.putArray("path");
    pathOf(n).forEach(ancestry::add);
    manifest.put("status", status.name().toLowerCase(java.util.Locale.ROOT));
    manifest.put("created", n.created.toString());
    return manifest;
  }

  private static void putVersion(ObjectNode json, FileVersion version) {
    json.put("kind", version.kind().name().toLowerCase(java.util.Locale.ROOT));
    if (version.exists()) {
      json.put("blob", version.blob().name());
    }
    if (version.hasMode()) {
      json.put("mode", FileModes.octal(version.mode())); // git's tree keeps only 100644 or 100755
    }
  }

  static byte[] bytes(ObjectNode json) {
    try {
      return (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<ObjectId> parentCommits(Node from) {
    for (Node n = from; n != null; n = n.parent) {
      if (n.commit != null) {
        return List.of(n.commit);
      }
    }
    return List.of();
  }

  // ------------------------------------------------------------------------ moving around

  /** Moves files and conversation back one checkpoint. */
  public synchronized RestoreResult undo() {
    return undo(false);
  }

  /** {@link #undo()}; with {@code force}, files whose later edits clash are overwritten (kept under a rescue tag). */
  public synchronized RestoreResult undo(boolean force) {
    requireNoTurn("undo");
    if (live.parent == null) {
      throw new CheckpointException("Nothing to undo: #0 is the start of this tab.");
    }
    return move(live.parent, RestoreMode.BOTH, force);
  }

  /** Moves files and conversation back to {@code #number}, which must come before the live checkpoint. */
  public synchronized RestoreResult undoTo(int number) {
    return undoTo(number, false);
  }

  public synchronized RestoreResult undoTo(int number, boolean force) {
    requireNoTurn("undo");
    Node target = node(number);
    if (target == live || !isAncestor(target, live)) {
      throw new CheckpointException("#" + number + " does not come before the live checkpoint #" + live.number
          + "; use goto to move to any checkpoint.");
    }
    return move(target, RestoreMode.BOTH, force);
  }

  /** Re-applies the checkpoint most recently undone. */
  public synchronized RestoreResult redo() {
    return redo(false);
  }

  public synchronized RestoreResult redo(boolean force) {
    requireNoTurn("redo");
    if (redo.isEmpty()) {
      throw new CheckpointException("Nothing to redo.");
    }
    return move(redo.peek(), RestoreMode.BOTH, force);
  }

  /** Moves files and conversation to any checkpoint, abandoned branches included. */
  public synchronized RestoreResult goTo(int number) {
    return goTo(number, false);
  }

  public synchronized RestoreResult goTo(int number, boolean force) {
    requireNoTurn("go to another checkpoint");
    return move(node(number), RestoreMode.BOTH, force);
  }

  /** The checkpoint saved under {@code name} in this tab. */
  public synchronized int saved(String name) {
    for (Node n : nodes) {
      if (n != null && n.saved.contains(name)) {
        return n.number;
      }
    }
    List<String> names = new ArrayList<>();
    nodes.stream().filter(java.util.Objects::nonNull).forEach(n -> names.addAll(n.saved));
    throw new CheckpointException("This tab has no save named \"" + name + "\""
        + (names.isEmpty() ? " (it has none)." : " (it has " + String.join(", ", new TreeSet<>(names)) + ")."));
  }

  /**
   * Restores {@code #number} in the given mode. With {@code force}, files whose later edits clash
   * are overwritten, and what was on disk is kept under a rescue tag.
   */
  public synchronized RestoreResult restore(int number, RestoreMode mode, boolean force) {
    requireNoTurn("restore");
    return move(node(number), mode, force);
  }

  private RestoreResult move(Node target, RestoreMode mode, boolean force) {
    int from = live.number;
    int fromFiles = files.number;
    FileRestore.Outcome outcome = FileRestore.Outcome.NOTHING;
    if (mode.movesFiles() && target != files) {
      refuseLost(files, target);
      outcome = new FileRestore(store, tabId, files, target, force).run(from);
      if (!outcome.applied()) {
        return new RestoreResult(false, from, target.number, List.of(), List.of(), outcome.conflicts(),
            Optional.empty(), pathOf(live));
      }
      files = target;
    }
    if (mode.movesConversation()) {
      moveRedo(target);
      live = target;
      linkTimeline(target);
    }
    viewed = null;
    if (from != live.number || fromFiles != files.number) {
      List<Integer> redoList = new ArrayList<>();
      redo.forEach(n -> redoList.add(n.number));
      store.recordMove(tabId, new ShadowStore.TabPosition(from, fromFiles, live.number, files.number, redoList));
    }
    return new RestoreResult(true, from, target.number, outcome.written(), outcome.merged(),
        outcome.conflicts(), outcome.rescueTag(), pathOf(live));
  }

  /**
   * Refuses a move of the files across a checkpoint whose changes are gone from the store (its
   * commit was lost): the files it changed could not be put where the target has them, and a
   * restore that writes nothing of them must not pass for one that worked.
   */
  private void refuseLost(Node from, Node to) {
    Node a = from;
    Node b = to;
    Set<Integer> lost = new TreeSet<>();
    while (a != b) {
      Node deeper = a.depth >= b.depth ? a : b;
      if (deeper.lost) {
        lost.add(deeper.number);
      }
      if (deeper == a) {
        a = a.parent;
      } else {
        b = b.parent;
      }
    }
    if (!lost.isEmpty()) {
      throw new CheckpointException("Cannot restore #" + to.number + ": what checkpoint(s) "
          + String.join(", ", lost.stream().map(n -> "#" + n).toList())
          + " changed is gone from the shadow repository (deleted or damaged), so nothing was restored.");
    }
  }

  private void moveRedo(Node target) {
    if (target == live) {
      return;
    }
    if (isAncestor(target, live)) {
      List<Node> undone = new ArrayList<>();
      for (Node n = live; n != target; n = n.parent) {
        undone.add(n);
      }
      for (Node n : undone) {
        redo.push(n);
      }
    } else if (redo.contains(target) && isAncestor(live, target)) {
      while (redo.pop() != target) {
        // drop the redone checkpoints up to the target
      }
    } else {
      redo.clear();
    }
  }

  // ---------------------------------------------------------------------------- diff, save

  /** How the files on disk differ from checkpoint {@code #number}, for the files the tab tracks there. */
  public synchronized CheckpointDiff diff(int number) {
    Map<String, FileVersion> wanted = versionsAt(node(number));
    List<CheckpointDiff.FileDiff> diffs = new ArrayList<>();
    try {
      for (var entry : wanted.entrySet()) {
        String path = entry.getKey();
        FileVersion version = entry.getValue();
        WorkTree.DiskFile disk = store.workTree().read(path, store.repo());
        if (disk.matches(version)) {
          continue;
        }
        byte[] at = version.exists() ? store.repo().read(version.blob()) : null;
        boolean onDisk = !disk.blocked() && disk.kind() != FileKind.ABSENT;
        byte[] now = onDisk ? store.workTree().readState(path).contentUnsafe() : null;
        diffs.add(unifiedDiff(path, at, version.kind(), version.mode(), now, disk.blocked() ? null : disk.kind(), disk.mode()));
      }
    } catch (IOException e) {
      throw new CheckpointException("Could not read the project's files for the diff: " + e.getMessage(), e);
    }
    return new CheckpointDiff(number, diffs);
  }

  /**
   * What {@code target} holds for every path any checkpoint of the tab touched: what a restore
   * from the files checkpoint would write, else the latest "after" on its path from {@code #0},
   * else the "before" of the earliest checkpoint that touched the path (as it was before the tab).
   */
  private Map<String, FileVersion> versionsAt(Node target) {
    Map<String, FileVersion> versions = new TreeMap<>();
    FileRestore.plan(files, target).forEach((path, planned) -> versions.put(path, planned.target()));
    for (Node n = target; n != null; n = n.parent) {
      for (FileChange change : n.changes.values()) {
        versions.putIfAbsent(change.path(), change.after());
      }
    }
    for (Node n : nodes) {
      if (n != null && (running == null || running.node != n)) {
        for (FileChange change : n.changes.values()) {
          versions.putIfAbsent(change.path(), change.before());
        }
      }
    }
    return versions;
  }

  /** The lines added and removed by checkpoint {@code #number}'s own changes, per file. */
  public synchronized List<CheckpointDiff.FileDiff> changeDiffs(int number) {
    Node node = node(number);
    List<CheckpointDiff.FileDiff> diffs = new ArrayList<>();
    try {
      for (FileChange change : node.changes.values()) {
        byte[] before = change.before().exists() ? store.repo().read(change.before().blob()) : null;
        byte[] after = change.after().exists() ? store.repo().read(change.after().blob()) : null;
        diffs.add(unifiedDiff(change.path(), before, change.before().kind(), change.before().mode(), after,
            change.after().kind(), change.after().mode()));
      }
    } catch (IOException e) {
      throw new CheckpointException("Could not read checkpoint #" + number + ": " + e.getMessage(), e);
    }
    return diffs;
  }

  static CheckpointDiff.FileDiff unifiedDiff(String path, byte[] old, FileKind oldKind, byte[] now, FileKind nowKind) {
    return unifiedDiff(path, old, oldKind, FileVersion.NO_MODE, now, nowKind, FileVersion.NO_MODE);
  }

  /** A diff of two versions; a mode that changed (kind, or permission bits where both are known) gets git's mode lines. */
  static CheckpointDiff.FileDiff unifiedDiff(String path, byte[] old, FileKind oldKind, int oldMode, byte[] now,
      FileKind nowKind, int nowMode) {
    StringBuilder header = new StringBuilder();
    header.append("diff --waymark a/").append(path).append(" b/").append(path).append('\n');
    if (now == null && nowKind == null) {
      header.append("# b/").append(path).append(" is a directory or special file on disk\n");
    }
    boolean bitsDiffer = oldMode != FileVersion.NO_MODE && nowMode != FileVersion.NO_MODE && oldMode != nowMode;
    if (oldKind != null && nowKind != null && (oldKind != nowKind || bitsDiffer) && old != null && now != null) {
      header.append("old mode ").append(modeLine(oldKind, oldMode)).append('\n');
      header.append("new mode ").append(modeLine(nowKind, nowMode)).append('\n');
    }
    byte[] a = old == null ? new byte[0] : old;
    byte[] b = now == null ? new byte[0] : now;
    if (RawText.isBinary(a) || RawText.isBinary(b)) {
      header.append("Binary files ").append(old == null ? "/dev/null" : "a/" + path).append(" and ")
          .append(now == null ? "/dev/null" : "b/" + path).append(" differ\n");
      return new CheckpointDiff.FileDiff(path, header.toString(), 0, 0, true);
    }
    header.append("--- ").append(old == null ? "/dev/null" : "a/" + path).append('\n');
    header.append("+++ ").append(now == null ? "/dev/null" : "b/" + path).append('\n');
    RawText left = new RawText(a);
    RawText right = new RawText(b);
    EditList edits = new HistogramDiff().diff(RawTextComparator.DEFAULT, left, right);
    int added = 0;
    int removed = 0;
    for (Edit edit : edits) {
      added += edit.getLengthB();
      removed += edit.getLengthA();
    }
    ByteArrayOutputStream hunks = new ByteArrayOutputStream();
    try (DiffFormatter formatter = new DiffFormatter(hunks)) {
      formatter.format(edits, left, right);
      formatter.flush();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new CheckpointDiff.FileDiff(path, header + hunks.toString(StandardCharsets.UTF_8), added, removed, false);
  }

  /** Git's 100644 or 100755, or with the recorded bits where there are some (100600). */
  private static String modeLine(FileKind kind, int mode) {
    return mode == FileVersion.NO_MODE || kind == FileKind.SYMLINK ? kind.gitMode().toString()
        : "100" + FileModes.octal(mode).substring(1);
  }

  /**
   * Tags the live checkpoint under {@code name} ({@code refs/tags/waymark/<tab>/saved/<name>}):
   * a commit whose {@code post/} tree holds every file the tab tracks as it is at live. Saves are
   * never pruned.
   */
  public synchronized Checkpoint save(String name) {
    requireNoTurn("save");
    checkSaveName(name);
    for (Node n = live; n != null; n = n.parent) {
      if (n.lost) {
        throw new CheckpointException("Cannot save #" + live.number + ": what #" + n.number
            + " changed is gone from the shadow repository (deleted or damaged).");
      }
    }
    String tag = ShadowStore.tagPrefix(tabId) + "saved/" + name;
    if (store.repo().resolve(tag) != null) {
      throw new CheckpointException("This tab already has a save named " + name + ".");
    }
    Map<String, FileVersion> state = new TreeMap<>();
    for (Node n = live; n != null; n = n.parent) {
      for (FileChange change : n.changes.values()) {
        state.putIfAbsent(change.path(), change.after());
      }
    }
    List<ShadowRepository.TreeEntry> entries = new ArrayList<>();
    ObjectNode manifest = manifest(live.number, live.status);
    manifest.put("save", name);
    ArrayNode listed = manifest.putArray("files");
    for (var entry : state.entrySet()) {
      if (entry.getValue().exists()) {
        entries.add(new ShadowRepository.TreeEntry("post/" + entry.getKey(), entry.getValue()));
      }
      ObjectNode f = listed.addObject();
      f.put("path", entry.getKey());
      putVersion(f, entry.getValue());
    }
    store.repo().commitAndTag(entries, bytes(manifest), parentCommits(live),
        "waymark " + tabId + " save " + name + " at #" + live.number + "\n", store.clock().instant(), tag);
    live.saved.add(name);
    return live.snapshot(tabId);
  }

  /**
   * A save name is one component of a git ref name ({@code git check-ref-format}): letters,
   * digits, '.', '-' and '_', starting with a letter or digit, with no "..", and not ending in
   * '.' or ".lock".
   */
  static void checkSaveName(String name) {
    String why = name == null || !SAVE_NAME.matcher(name).matches()
        ? "letters, digits, '.', '-' and '_', starting with a letter or digit, up to 64"
        : name.contains("..") ? "no \"..\" in it"
        : name.endsWith(".") ? "it may not end with '.'"
        : name.endsWith(".lock") ? "it may not end with \".lock\""
        : null;
    if (why != null) {
      throw new CheckpointException("Not a valid save name: \"" + name + "\" (" + why + ").");
    }
  }

  // --------------------------------------------------------------------------- retention

  private void prune() {
    RetentionPolicy policy = store.retention();
    Instant oldest = store.clock().instant().minus(policy.maxAge());
    List<Node> tagged = new ArrayList<>();
    int automatic = 0;
    for (Node n : nodes) {
      if (n != null && n.tag != null && n.saved.isEmpty()) {
        automatic++;
        if (n != live && n != files) {
          tagged.add(n);
        }
      }
    }
    int excess = automatic - policy.keepPerTab();
    // Past the limit, prune in batches of a tenth of it: each deletion rewrites packed-refs.
    if (excess > 0 && excess <= policy.keepPerTab() / 10) {
      excess = 0;
    }
    List<String> doomed = new ArrayList<>();
    for (Node n : tagged) {
      if (excess > 0 || n.created.isBefore(oldest)) {
        doomed.add(n.tag);
        excess--;
      }
    }
    if (doomed.isEmpty()) {
      return;
    }
    store.repo().deleteRefs(doomed);
    Set<String> gone = new HashSet<>(doomed);
    for (Node n : tagged) {
      if (gone.contains(n.tag)) {
        n.tag = null;
      }
    }
  }

  // ------------------------------------------------------------------------------ helpers

  private void requireNoTurn(String what) {
    if (released) {
      throw new CheckpointException("Tab " + tabId + " was closed; open it again to " + what + ".");
    }
    if (running != null) {
      throw new CheckpointException("Checkpoint #" + running.number() + " is still running; finish or cancel it before you " + what + ".");
    }
  }

  private Node node(int number) {
    if (number < 0 || number >= nodes.size()) {
      throw new CheckpointException("This tab has no checkpoint #" + number
          + " (it has #0 to #" + (nodes.size() - 1) + ").");
    }
    Node found = nodes.get(number);
    if (found == null) {
      throw new CheckpointException("Checkpoint #" + number + " of this tab changed no files and was not brought back "
          + "from the store.");
    }
    return found;
  }

  static boolean isAncestor(Node ancestor, Node of) {
    Node n = of;
    while (n != null && n.depth > ancestor.depth) {
      n = n.parent;
    }
    return n == ancestor;
  }

  private static List<Integer> pathOf(Node node) {
    List<Integer> path = new ArrayList<>(node.depth + 1);
    for (Node n = node; n != null; n = n.parent) {
      path.add(n.number);
    }
    Collections.reverse(path);
    return path;
  }

  /** Points each ancestor's {@code next} toward {@code node}, so that view-forward walks to it. */
  private static void linkTimeline(Node node) {
    for (Node n = node; n.parent != null && n.parent.next != n; n = n.parent) {
      n.parent.next = n;
    }
  }

  /** A checkpoint's mutable state inside the tree. */
  static final class Node {
    final int number;
    final Node parent;
    final int depth;
    final Instant created;
    final TreeMap<String, FileChange> changes = new TreeMap<>();
    final Set<String> saved = new TreeSet<>();
    Node next;
    CheckpointStatus status;
    /** Its file changes are gone from the store: no restore may cross it. */
    boolean lost;
    ObjectId commit;
    String tag;

    Node(int number, Node parent, CheckpointStatus status, Instant created) {
      this.number = number;
      this.parent = parent;
      this.depth = parent == null ? 0 : parent.depth + 1;
      this.status = status;
      this.created = created;
    }

    Checkpoint snapshot(String tabId) {
      return new Checkpoint(number, parent == null ? -1 : parent.number, status, created,
          new ArrayList<>(changes.values()), Optional.ofNullable(commit), Optional.ofNullable(tag), saved);
    }
  }
}
