package dev.waymark.core.checkpoint;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The checkpoint engine's specification as a plain in-memory program: a project directory (a map
 * from path to content) shared by several tabs, each with its tree of checkpoints.
 *
 * <p>It uses nothing of the engine, of git or of JGit. Its only non-obvious part is the three-way
 * text merge ({@link #mergeText}), which is exact only for the texts that {@link
 * CheckpointTreeProperties} generates: every text file is empty or has {@link #LINES} lines, and
 * each line names its own position ({@code "3:..."}) and is otherwise unique, so that any line
 * diff between two such files pairs exactly the equal lines at equal positions. A line is
 * compared with its newline: dropping the final newline changes the last line.
 *
 * <h2>The rules</h2>
 *
 * <ul>
 *   <li>Node {@code #0} is a tab's start. {@link #begin} opens a child of the live node, which
 *       becomes live and "files" and clears the redo stack. {@link #record} folds records of one
 *       path (first before, last after; dropped when they are equal). {@link #finish} makes a tag
 *       iff the node has changes.
 *   <li>undo: to the parent of live; undoTo(n): n must be a proper ancestor of live; redo: to the
 *       top of the redo stack; goTo(n): anywhere. Moving live to a proper ancestor pushes the
 *       nodes left (the target's child on top); moving it to a node on the redo stack that lies
 *       below live pops up to that node; any other move clears the stack.
 *   <li>Moving the files from F to T, with L their lowest common ancestor, "up" the nodes from F
 *       to L's child and "down" those from T to L's child: each path they change has a target
 *       (the {@code after} of the deepest down node touching it, else the {@code before} of the
 *       shallowest up node) and a base, what the tab expects on disk (the {@code after} of the
 *       deepest up node, else the {@code before} of the shallowest down node). Paths whose base
 *       is their target are skipped. Disk = target: nothing to do; disk = base: write the target;
 *       base, disk and target all text: three-way merge, else a conflict. One conflict and no
 *       force: nothing happens at all. Forced: conflicts get the target, what was on disk is
 *       rescued.
 *   <li>A restore of only the files, a revert and a restore of single files write their plan the
 *       same way, then add a finished node under live holding what they wrote (folded); a restore
 *       of only the conversation adds one that writes nothing. Revert N..M (N on the way to M, M
 *       on the live path) plans the move from M to N's parent, only its named paths; single files
 *       plan each path from what the files node holds to what the target holds. A plan that
 *       writes nothing is refused.
 * </ul>
 */
final class ReferenceModel {
  /** Lines of every non-empty generated text file. */
  static final int LINES = 8;

  enum Kind { ABSENT, REGULAR, EXECUTABLE, SYMLINK }

  /** What one path holds: its kind and bytes (a link's bytes are its target). */
  record Content(Kind kind, byte[] bytes) {
    static final Content ABSENT = new Content(Kind.ABSENT, new byte[0]);

    static Content of(Kind kind, String text) {
      return new Content(kind, text.getBytes(StandardCharsets.UTF_8));
    }

    boolean exists() {
      return kind != Kind.ABSENT;
    }

    boolean isText() {
      return (kind == Kind.REGULAR || kind == Kind.EXECUTABLE) && !isBinary(bytes);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Content c && c.kind == kind && Arrays.equals(c.bytes, bytes);
    }

    @Override
    public int hashCode() {
      return kind.hashCode() * 31 + Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      if (kind == Kind.ABSENT) {
        return "absent";
      }
      if (isBinary(bytes)) {
        return kind + " binary " + new String(bytes, StandardCharsets.UTF_8).replace('\0', '0');
      }
      return kind + " \"" + new String(bytes, StandardCharsets.UTF_8).replace("\n", "|") + "\"";
    }
  }

  /** A path's change in one checkpoint. */
  record Change(Content before, Content after) {}

  /** One checkpoint. */
  static final class Node {
    final int number;
    final Node parent;
    final int depth;
    final TreeMap<String, Change> changes = new TreeMap<>();
    boolean finished;

    Node(int number, Node parent) {
      this.number = number;
      this.parent = parent;
      this.depth = parent == null ? 0 : parent.depth + 1;
    }

    boolean isProperAncestorOf(Node other) {
      for (Node n = other.parent; n != null; n = n.parent) {
        if (n == this) {
          return true;
        }
      }
      return false;
    }

    @Override
    public String toString() {
      return "#" + number + (parent == null ? "" : "<#" + parent.number) + changes.keySet();
    }
  }

  /** One tab's tree. */
  static final class Tab {
    final String id;
    final List<Node> nodes = new ArrayList<>();
    final Deque<Node> redo = new ArrayDeque<>(); // first = top
    final Set<String> saves = new TreeSet<>();
    Node live;
    Node files;
    Node running;

    Tab(String id) {
      this.id = id;
      Node start = new Node(0, null);
      start.finished = true;
      nodes.add(start);
      live = start;
      files = start;
    }

    Node node(int number) {
      if (number < 0 || number >= nodes.size()) {
        throw new Refused("no checkpoint #" + number);
      }
      return nodes.get(number);
    }

    Optional<Integer> redoable() {
      return redo.isEmpty() ? Optional.empty() : Optional.of(redo.peekFirst().number);
    }

    List<Integer> livePath() {
      List<Integer> path = new ArrayList<>();
      for (Node n = live; n != null; n = n.parent) {
        path.add(0, n.number);
      }
      return path;
    }

    /** The proper ancestors of live, nearest first. */
    List<Integer> ancestorsOfLive() {
      List<Integer> all = new ArrayList<>();
      for (Node n = live.parent; n != null; n = n.parent) {
        all.add(n.number);
      }
      return all;
    }

    /** The tag names, after {@code refs/tags/waymark/<tab>/}, this tab must have (rescues aside). */
    Set<String> expectedTags() {
      Set<String> tags = new TreeSet<>();
      for (Node n : nodes) {
        if (n.finished && !n.changes.isEmpty()) {
          tags.add(Integer.toString(n.number));
        }
      }
      for (String save : saves) {
        tags.add("saved/" + save);
      }
      return tags;
    }

    @Override
    public String toString() {
      return id + " live=#" + live.number + " files=#" + files.number + " redo=" + redo.stream().map(n -> n.number).toList()
          + " nodes=" + nodes;
    }
  }

  /** What a restore did, as {@link RestoreResult} reports it; {@code rescued} is what force overwrote. */
  record Outcome(boolean applied, int from, int target, List<String> written, List<String> merged,
      List<String> conflicts, Map<String, Content> rescued, List<Integer> livePath) {}

  /** The engine must refuse this operation (with a {@link CheckpointException}) and change nothing. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String why) {
      super(why);
    }
  }

  private final Map<String, Content> disk = new TreeMap<>();
  private final Map<String, Tab> tabs = new LinkedHashMap<>();
  private final Set<String> situations = new TreeSet<>();

  ReferenceModel(List<String> tabIds) {
    for (String id : tabIds) {
      tabs.put(id, new Tab(id));
    }
  }

  // ------------------------------------------------------------------------------- the disk

  Content disk(String path) {
    return disk.getOrDefault(path, Content.ABSENT);
  }

  /** Anyone (an agent's tool, the user, another program) puts {@code content} at {@code path}. */
  void write(String path, Content content) {
    if (content.exists()) {
      disk.put(path, content);
    } else {
      disk.remove(path);
    }
  }

  /** The paths that hold something now. */
  Set<String> existingPaths() {
    return new TreeSet<>(disk.keySet());
  }

  Tab tab(String id) {
    return tabs.get(id);
  }

  /** The notable situations the model went through (for the test's coverage statistics). */
  Set<String> situations() {
    return situations;
  }

  Iterable<Tab> tabs() {
    return tabs.values();
  }

  // --------------------------------------------------------------------------------- turns

  int begin(String tabId) {
    Tab tab = tab(tabId);
    if (tab.running != null) {
      throw new Refused("a turn is running");
    }
    Node node = new Node(tab.nodes.size(), tab.live);
    // After a one-sided restore the files are not live's: the new checkpoint starts from them,
    // so it holds the difference from live to the files as its own change.
    if (tab.files != tab.live) {
      situations.add("turn after a one-sided restore");
      plan(tab.live, tab.files).forEach((path, baseAndTarget) -> node.changes.put(path, new Change(baseAndTarget[0], baseAndTarget[1])));
    }
    tab.nodes.add(node);
    tab.live = node;
    tab.files = node;
    tab.redo.clear();
    tab.running = node;
    return node.number;
  }

  void record(String tabId, String path, Content before, Content after) {
    Node node = tab(tabId).running;
    Change earlier = node.changes.get(path);
    Content first = earlier == null ? before : earlier.before();
    if (earlier != null && !earlier.after().equals(before)) {
      situations.add("record after someone else's edit in the turn");
    }
    if (first.equals(after)) {
      if (earlier != null) {
        situations.add("records fold away");
      }
      node.changes.remove(path);
    } else {
      node.changes.put(path, new Change(first, after));
    }
  }

  /** Ends the running turn; it gets a tag iff it has changes. */
  Node finish(String tabId) {
    Tab tab = tab(tabId);
    Node node = tab.running;
    node.finished = true;
    tab.running = null;
    return node;
  }

  /** The content before the running turn of each path it changed so far. */
  Optional<Content> beforeInRunningTurn(String tabId, String path) {
    Change change = tab(tabId).running.changes.get(path);
    return change == null ? Optional.empty() : Optional.of(change.before());
  }

  void save(String tabId, String name) {
    Tab tab = tab(tabId);
    if (tab.running != null || tab.saves.contains(name)) {
      throw new Refused("save name " + name + " taken");
    }
    tab.saves.add(name);
  }

  /** Every path some node from {@code #0} to {@code number} changed, with the latest {@code after}. */
  Map<String, Content> stateAt(String tabId, int number) {
    Map<String, Content> state = new TreeMap<>();
    for (Node n = tab(tabId).node(number); n != null; n = n.parent) {
      for (var change : n.changes.entrySet()) {
        state.putIfAbsent(change.getKey(), change.getValue().after());
      }
    }
    return state;
  }

  /**
   * What {@code #number} holds for each path any checkpoint of the tab touched: what a restore
   * from the files checkpoint would write, else the latest "after" on its path from {@code #0},
   * else the "before" of the earliest checkpoint that touched the path.
   */
  Map<String, Content> versionsAt(String tabId, int number) {
    Tab tab = tab(tabId);
    Node target = tab.node(number);
    Map<String, Content> versions = new TreeMap<>();
    plan(tab.files, target).forEach((path, baseAndTarget) -> versions.put(path, baseAndTarget[1]));
    stateAt(tabId, number).forEach(versions::putIfAbsent);
    for (Node n : tab.nodes) {
      if (n != tab.running) {
        n.changes.forEach((path, change) -> versions.putIfAbsent(path, change.before()));
      }
    }
    return versions;
  }

  // ------------------------------------------------------------------------------ restores

  Outcome undo(String tabId) {
    Tab tab = tab(tabId);
    requireNoTurn(tab);
    if (tab.live.parent == null) {
      throw new Refused("nothing to undo");
    }
    return move(tab, tab.live.parent, true, true, false);
  }

  Outcome undoTo(String tabId, int number) {
    Tab tab = tab(tabId);
    requireNoTurn(tab);
    Node target = tab.node(number);
    if (!target.isProperAncestorOf(tab.live)) {
      throw new Refused("#" + number + " is not before live");
    }
    return move(tab, target, true, true, false);
  }

  Outcome redo(String tabId) {
    Tab tab = tab(tabId);
    requireNoTurn(tab);
    if (tab.redo.isEmpty()) {
      throw new Refused("nothing to redo");
    }
    return move(tab, tab.redo.peekFirst(), true, true, false);
  }

  Outcome goTo(String tabId, int number) {
    Tab tab = tab(tabId);
    requireNoTurn(tab);
    return move(tab, tab.node(number), true, true, false);
  }

  /**
   * Both: a move. Files only: a new node under live holding what the restore wrote. Conversation
   * only: a new node under live, nothing written (the conversation is the agent's).
   */
  Outcome restore(String tabId, int number, boolean files, boolean conversation, boolean force) {
    Tab tab = tab(tabId);
    requireNoTurn(tab);
    Node target = tab.node(number);
    if (files && conversation) {
      return move(tab, target, true, true, force);
    }
    situations.add("one-sided restore");
    if (files) {
      if (target == tab.files) {
        throw new Refused("files already at #" + number);
      }
      return asCheckpoint(tab, plan(tab.files, target), number, force);
    }
    if (target == tab.live) {
      throw new Refused("conversation already at #" + number);
    }
    int from = tab.live.number;
    add(tab, tab.live);
    lastApplied = true;
    return new Outcome(true, from, number, List.of(), List.of(), List.of(), Map.of(), tab.livePath());
  }

  /** Takes back what {@code #first..#last} changed (only {@code paths} when given), as a new node under live. */
  Outcome revert(String tabId, int first, int last, Set<String> paths, boolean force) {
    Tab tab = tab(tabId);
    requireNoTurn(tab);
    Node from = tab.node(first);
    Node to = tab.node(last);
    if (from.parent == null || !(from == to || from.isProperAncestorOf(to))
        || !(to == tab.live || to.isProperAncestorOf(tab.live))) {
      throw new Refused("not a range on the live path");
    }
    Map<String, Content[]> plan = new TreeMap<>(plan(to, from.parent));
    if (!paths.isEmpty()) {
      if (!plan.keySet().containsAll(paths)) {
        throw new Refused("the range did not change " + paths);
      }
      plan.keySet().retainAll(paths);
    }
    if (plan.isEmpty()) {
      throw new Refused("the range changed nothing");
    }
    situations.add(first == last ? (paths.isEmpty() ? "revert" : "revert of one file") : "revert of a range");
    return asCheckpoint(tab, plan, first, force);
  }

  /** Puts {@code paths} back to how {@code #number} holds them, as a new node under live. */
  Outcome restorePaths(String tabId, int number, Set<String> paths, boolean force) {
    Tab tab = tab(tabId);
    requireNoTurn(tab);
    Map<String, Content> wanted = versionsAt(tabId, number);
    Map<String, Content> now = versionsAt(tabId, tab.files.number);
    Map<String, Content[]> plan = new TreeMap<>();
    for (String path : paths) {
      if (!wanted.containsKey(path)) {
        throw new Refused("no checkpoint changed " + path);
      }
      plan.put(path, new Content[] {now.get(path), wanted.get(path)});
    }
    situations.add("restore of single files");
    return asCheckpoint(tab, plan, number, force);
  }

  /** Writes {@code plan} as a restore does and records the writes as a new node under live. */
  private Outcome asCheckpoint(Tab tab, Map<String, Content[]> plan, int subject, boolean force) {
    int from = tab.live.number;
    Writes w = writes(plan);
    if (!w.conflicts.isEmpty() && !force) {
      lastApplied = false;
      return new Outcome(false, from, subject, List.of(), List.of(), w.conflicts, Map.of(), tab.livePath());
    }
    if (w.writes.isEmpty()) {
      throw new Refused("nothing to write");
    }
    Map<String, Content> before = new TreeMap<>();
    w.writes.keySet().forEach(path -> before.put(path, disk(path)));
    w.writes.forEach(this::write);
    Node node = add(tab, tab.live);
    w.writes.forEach((path, after) -> {
      Change earlier = node.changes.get(path);
      Content first = earlier == null ? before.get(path) : earlier.before();
      if (first.equals(after)) {
        node.changes.remove(path);
      } else {
        node.changes.put(path, new Change(first, after));
      }
    });
    lastApplied = true;
    return new Outcome(true, from, subject, w.written, w.merged, w.conflicts, w.rescued, tab.livePath());
  }

  /** A finished node under {@code parent}, starting from the tab's files; it becomes live and files. */
  private Node add(Tab tab, Node parent) {
    Node node = new Node(tab.nodes.size(), parent);
    if (tab.files != parent) {
      plan(parent, tab.files).forEach((path, baseAndTarget) -> node.changes.put(path, new Change(baseAndTarget[0], baseAndTarget[1])));
    }
    node.finished = true;
    tab.nodes.add(node);
    tab.live = node;
    tab.files = node;
    tab.redo.clear();
    return node;
  }

  /** What writing a plan onto the disk does: the writes (conflicts forced), and what each path became. */
  private record Writes(Map<String, Content> writes, List<String> written, List<String> merged, List<String> conflicts,
      Map<String, Content> rescued) {}

  private Writes writes(Map<String, Content[]> plan) {
    Writes w = new Writes(new TreeMap<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new TreeMap<>());
    for (var entry : plan.entrySet()) {
      String path = entry.getKey();
      Content base = entry.getValue()[0];
      Content wanted = entry.getValue()[1];
      Content now = disk(path);
      if (now.equals(wanted)) {
        situations.add("disk already holds the target");
        continue;
      }
      if (now.equals(base)) {
        w.writes.put(path, wanted);
        w.written.add(path);
        continue;
      }
      Optional<byte[]> mergedBytes = base.isText() && now.isText() && wanted.isText()
          ? mergeText(base.bytes(), now.bytes(), wanted.bytes())
          : Optional.empty();
      if (mergedBytes.isPresent()) {
        Kind kind = now.kind() == base.kind() ? wanted.kind() : now.kind();
        situations.add(now.kind() == base.kind() ? "merge" : "merge keeping the disk's mode");
        if (mergedBytes.get().length == 0) {
          situations.add("merge to an empty file");
        }
        w.writes.put(path, new Content(kind, mergedBytes.get()));
        w.merged.add(path);
      } else {
        situations.add(!now.exists() ? "conflict: deleted on disk"
            : base.isText() && now.isText() && wanted.isText() ? "conflict: text clash" : "conflict: not text");
        w.conflicts.add(path);
        w.rescued.put(path, now);
        w.writes.put(path, wanted);
      }
    }
    return w;
  }

  private static void requireNoTurn(Tab tab) {
    if (tab.running != null) {
      throw new Refused("a turn is running");
    }
  }

  /** Whether the last restore the model played was applied. */
  boolean lastApplied;

  private Outcome move(Tab tab, Node target, boolean movesFiles, boolean movesConversation, boolean force) {
    Outcome outcome = moveFiles(tab, target, movesFiles, movesConversation, force);
    lastApplied = outcome.applied();
    return outcome;
  }

  private Outcome moveFiles(Tab tab, Node target, boolean movesFiles, boolean movesConversation, boolean force) {
    int from = tab.live.number;
    List<String> written = new ArrayList<>();
    List<String> merged = new ArrayList<>();
    List<String> conflicts = new ArrayList<>();
    Map<String, Content> rescued = new TreeMap<>();
    if (movesFiles && target != tab.files) {
      Writes w = writes(plan(tab.files, target));
      written = w.written;
      merged = w.merged;
      conflicts = w.conflicts;
      rescued = w.rescued;
      Map<String, Content> writes = w.writes;
      if (!conflicts.isEmpty() && !force) {
        return new Outcome(false, from, target.number, List.of(), List.of(), conflicts, Map.of(), tab.livePath());
      }
      writes.forEach(this::write);
      tab.files = target;
    }
    if (movesFiles != movesConversation) {
      situations.add("one-sided restore");
    }
    if (movesConversation) {
      moveRedo(tab, target);
      tab.live = target;
    }
    return new Outcome(true, from, target.number, written, merged, conflicts, rescued, tab.livePath());
  }

  private void moveRedo(Tab tab, Node target) {
    if (target == tab.live) {
      return;
    }
    if (target.isProperAncestorOf(tab.live)) {
      if (!tab.redo.isEmpty()) {
        situations.add("undo onto a non-empty redo stack");
      }
      for (Node n = tab.live; n != target; n = n.parent) {
        tab.redo.addFirst(n);
      }
    } else if (tab.redo.contains(target) && tab.live.isProperAncestorOf(target)) {
      if (tab.redo.peekFirst() != target) {
        situations.add("goto pops several redo nodes");
      }
      while (tab.redo.removeFirst() != target) {
        // the nodes above target on the stack are redone on the way
      }
    } else {
      tab.redo.clear();
    }
  }

  /** For each path to move from {@code from} to {@code to}: {base, target}, base != target. */
  Map<String, Content[]> plan(Node from, Node to) {
    List<Node> up = new ArrayList<>(); // from first: deepest first
    List<Node> down = new ArrayList<>(); // to first: deepest first
    Node lca = lowestCommonAncestor(from, to);
    for (Node n = from; n != lca; n = n.parent) {
      up.add(n);
    }
    for (Node n = to; n != lca; n = n.parent) {
      down.add(n);
    }
    if (!up.isEmpty() && !down.isEmpty()) {
      situations.add("files move across branches");
    }
    Set<String> paths = new TreeSet<>();
    up.forEach(n -> paths.addAll(n.changes.keySet()));
    down.forEach(n -> paths.addAll(n.changes.keySet()));
    Map<String, Content[]> plan = new TreeMap<>();
    for (String path : paths) {
      Content target = deepest(down, path).map(Change::after)
          .orElseGet(() -> shallowest(up, path).get().before());
      Content base = deepest(up, path).map(Change::after)
          .orElseGet(() -> shallowest(down, path).get().before());
      if (!base.equals(target)) {
        plan.put(path, new Content[] {base, target});
      }
    }
    return plan;
  }

  private static Node lowestCommonAncestor(Node a, Node b) {
    Set<Node> aboveA = new HashSet<>();
    for (Node n = a; n != null; n = n.parent) {
      aboveA.add(n);
    }
    Node n = b;
    while (!aboveA.contains(n)) {
      n = n.parent;
    }
    return n;
  }

  private static Optional<Change> deepest(List<Node> deepestFirst, String path) {
    for (Node n : deepestFirst) {
      if (n.changes.containsKey(path)) {
        return Optional.of(n.changes.get(path));
      }
    }
    return Optional.empty();
  }

  private static Optional<Change> shallowest(List<Node> deepestFirst, String path) {
    for (int i = deepestFirst.size() - 1; i >= 0; i--) {
      if (deepestFirst.get(i).changes.containsKey(path)) {
        return Optional.of(deepestFirst.get(i).changes.get(path));
      }
    }
    return Optional.empty();
  }

  // ---------------------------------------------------------------------------- text merge

  static boolean isBinary(byte[] bytes) {
    for (byte b : bytes) {
      if (b == 0 || b == '\r') {
        return true;
      }
    }
    return false;
  }

  /**
   * Carries the change {@code base → theirs} into {@code ours}, line by line, for files that are
   * empty or have {@link #LINES} position-named lines. Empty when the two sides clash:
   *
   * <ul>
   *   <li>Emptied on one side: clean only if the other side is also empty or unchanged (then
   *       the result is empty).
   *   <li>Created on both sides from an empty base: clean only if both wrote the same.
   *   <li>Otherwise each side's changed lines form runs of consecutive lines. Runs of the two
   *       sides that overlap <em>or touch</em> (no unchanged line between them) form one region,
   *       transitively. A region with runs of one side only takes that side's lines; a region with
   *       runs of both sides is clean only if ours and theirs agree on every line of it (then the
   *       lines are taken). This is what a diff3-style merge that treats adjacent edits as
   *       clashing (git's, JGit's) does to such files.
   * </ul>
   */
  static Optional<byte[]> mergeText(byte[] base, byte[] ours, byte[] theirs) {
    if (isBinary(base) || isBinary(ours) || isBinary(theirs)) {
      return Optional.empty();
    }
    List<String> b = lines(base);
    List<String> o = lines(ours);
    List<String> t = lines(theirs);
    if (o.isEmpty()) {
      return t.isEmpty() || t.equals(b) ? Optional.of(new byte[0]) : Optional.empty();
    }
    if (t.isEmpty()) {
      return o.equals(b) ? Optional.of(new byte[0]) : Optional.empty();
    }
    if (b.isEmpty()) {
      return o.equals(t) ? Optional.of(ours.clone()) : Optional.empty();
    }
    int n = b.size();
    if (o.size() != n || t.size() != n) {
      throw new IllegalStateException("the model merges only files of " + LINES + " lines or none");
    }
    List<int[]> runs = new ArrayList<>(); // {begin, end, side}: side 0 = ours, 1 = theirs
    addRuns(runs, b, o, 0);
    addRuns(runs, b, t, 1);
    // Union the runs of opposite sides that overlap or touch.
    int[] group = new int[runs.size()];
    for (int i = 0; i < group.length; i++) {
      group[i] = i;
    }
    for (int i = 0; i < runs.size(); i++) {
      for (int j = 0; j < runs.size(); j++) {
        int[] r = runs.get(i);
        int[] s = runs.get(j);
        if (r[2] == 0 && s[2] == 1 && r[1] >= s[0] && s[1] >= r[0]) {
          int gi = find(group, i);
          int gj = find(group, j);
          group[gi] = gj;
        }
      }
    }
    List<String> result = new ArrayList<>(b);
    Map<Integer, List<int[]>> regions = new TreeMap<>();
    for (int i = 0; i < runs.size(); i++) {
      regions.computeIfAbsent(find(group, i), k -> new ArrayList<>()).add(runs.get(i));
    }
    for (List<int[]> region : regions.values()) {
      boolean hasOurs = region.stream().anyMatch(r -> r[2] == 0);
      boolean hasTheirs = region.stream().anyMatch(r -> r[2] == 1);
      int begin = region.stream().mapToInt(r -> r[0]).min().getAsInt();
      int end = region.stream().mapToInt(r -> r[1]).max().getAsInt();
      List<String> side = hasOurs ? o : t;
      for (int line = begin; line < end; line++) {
        if (hasOurs && hasTheirs && !o.get(line).equals(t.get(line))) {
          return Optional.empty();
        }
        result.set(line, side.get(line));
      }
    }
    return Optional.of(String.join("", result).getBytes(StandardCharsets.UTF_8));
  }

  private static int find(int[] group, int i) {
    while (group[i] != i) {
      i = group[i];
    }
    return i;
  }

  private static void addRuns(List<int[]> runs, List<String> base, List<String> side, int which) {
    int start = -1;
    for (int i = 0; i <= base.size(); i++) {
      boolean changed = i < base.size() && !base.get(i).equals(side.get(i));
      if (changed && start < 0) {
        start = i;
      } else if (!changed && start >= 0) {
        runs.add(new int[] {start, i, which});
        start = -1;
      }
    }
  }

  /** The lines of a text, each with its newline (the last one may have none). */
  static List<String> lines(byte[] text) {
    String s = new String(text, StandardCharsets.UTF_8);
    List<String> lines = new ArrayList<>();
    int start = 0;
    while (start < s.length()) {
      int end = s.indexOf('\n', start);
      end = end < 0 ? s.length() : end + 1;
      lines.add(s.substring(start, end));
      start = end;
    }
    return lines;
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("disk:\n");
    disk.forEach((path, content) -> s.append("  ").append(path).append(" = ").append(content).append('\n'));
    for (Tab tab : tabs.values()) {
      s.append(tab).append('\n');
    }
    return s.toString();
  }
}
