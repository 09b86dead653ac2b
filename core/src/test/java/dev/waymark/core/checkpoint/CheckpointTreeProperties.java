package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.ReferenceModel.Content;
import dev.waymark.core.checkpoint.ReferenceModel.Kind;
import dev.waymark.core.checkpoint.ReferenceModel.Outcome;
import dev.waymark.core.checkpoint.ReferenceModel.Refused;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.TextMerge;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tag;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * The checkpoint engine does exactly what the {@link ReferenceModel} says, for any sequence of
 * what three tabs sharing one project directory and their user can do.
 *
 * <p>Each of 1,000 tries opens a fresh project and Waymark home, three tabs, and plays a random
 * sequence of 10 to 30 steps (shrinking may cut it shorter) on the engine and on the model side
 * by side: agent turns (edits, creations,
 * deletions, renames, mode flips, binary, empty and link files, reverts that fold away, with
 * the user now and then editing in the middle of a turn), the user's own edits, undo, undo to an
 * ancestor, redo, goto any checkpoint (abandoned branches too), branch, one-sided restores, and
 * named saves. A restore refused for conflicts is sometimes repeated by force. After every step:
 *
 * <ul>
 *   <li>every path that may ever exist in the project holds, byte for byte and in kind
 *       (regular, executable, link, absent), what the model says, and nothing else is there;
 *   <li>each tab's live and files checkpoints, live path, redo top, and its checkpoints (number,
 *       parent, status) are the model's, and no turn is left running;
 *   <li>an operation the model refuses (undo at {@code #0}, redo with nothing undone, undo to a
 *       checkpoint not before live, a save name taken) throws a {@link CheckpointException} and
 *       changes nothing;
 *   <li>a restore reports what the model reports: applied or not, from, target, live path, the
 *       files written, merged and in conflict; a forced one names a rescue tag whose
 *       {@code disk/} tree holds exactly what it overwrote;
 *   <li>each tab's tags are exactly {@code refs/tags/waymark/<tab>/<n>} for each finished
 *       checkpoint with changes, {@code saved/<name>} for each save, and the rescue tags seen;
 *       a finished checkpoint records the model's folded changes, and its commit holds them
 *       under {@code pre/} and {@code post/}; a save's commit holds the model's files at live.
 * </ul>
 *
 * <p>The three-way merge is predicted without JGit: see {@link ReferenceModel#mergeText} and the
 * property {@link #theModelsLineMergeIsTheEnginesMerge} that pins it against {@link TextMerge}.
 * The statistics (in the surefire output) show how many tries reached each notable situation,
 * and coverage floors fail the property should the generator stop reaching them.
 */
@Tag("load")
class CheckpointTreeProperties {
  /** Where each try's project and home go: memory when the machine has it, else the temp dir. */
  static final Path SCRATCH = Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))
      ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));
  /** What the model notes when it happens; the statistics show how many tries saw each. */
  static final List<String> SITUATIONS = List.of("record after someone else's edit in the turn", "records fold away",
      "disk already holds the target", "merge", "merge keeping the disk's mode", "merge to an empty file",
      "conflict: deleted on disk", "conflict: text clash", "conflict: not text", "one-sided restore",
      "undo onto a non-empty redo stack", "goto pops several redo nodes", "files move across branches",
      "turn after a one-sided restore", "revert", "revert of a range", "revert of one file", "restore of single files");
  static final List<String> TABS = List.of("t1", "t2", "t3");
  static final List<String> PATHS = List.of("a.txt", "b.txt", "run.sh", "src/m.txt", "src/deep/n.txt");
  static final List<String> LINK_TARGETS = List.of("a.txt", "run.sh", "src", "../m.txt", "../../outside");

  // ----------------------------------------------------------------------------- the steps

  /** What an agent's tool or the user does to one path. */
  enum Op {
    /** Replace one or two neighbouring lines of a text file (a whole new text otherwise). */
    LINES,
    /** Drop or add the final newline of a text file. */
    EOL,
    /** Write a whole new text. */
    TEXT,
    EMPTY,
    BINARY,
    LINK,
    DELETE,
    /** Move the file to another path (a deletion and a creation). */
    RENAME,
    /** Flip the executable bit. */
    CHMOD,
    /** Put back what the running turn found there (agents only): the records fold away. */
    REVERT
  }

  /** One file action; {@code arg} (0 to 15) picks the lines (LINES) or the destination (RENAME). */
  record Edit(boolean byUser, Op op, String path, int arg) {
    int firstLine() {
      return arg % ReferenceModel.LINES;
    }

    /** One line in four edits a pair of neighbouring lines. */
    int lastLine() {
      return arg >= 12 ? Math.min(firstLine() + 1, ReferenceModel.LINES - 1) : firstLine();
    }

    String destination() {
      int i = (PATHS.indexOf(path) + 1 + arg % (PATHS.size() - 1)) % PATHS.size();
      return PATHS.get(i);
    }

    @Override
    public String toString() {
      String who = byUser ? "user " : "";
      switch (op) {
        case LINES:
          return who + "lines " + path + ":" + firstLine() + (lastLine() > firstLine() ? "-" + lastLine() : "");
        case RENAME:
          return who + "rename " + path + "->" + destination();
        default:
          return who + op.name().toLowerCase() + " " + path;
      }
    }
  }

  sealed interface Step permits AgentTurn, Branch, External, Undo, UndoTo, Redo, GoTo, OneSided, Save, Revert,
      RestorePaths {}

  /**
   * {@code revert(first, last, paths)}: {@code first} picked on the live path after {@code #0},
   * {@code last} {@code span} further (or live); {@code path} (mod the paths, or none when negative).
   * Repeated by force when refused and {@code force}.
   */
  record Revert(String tab, int pick, int span, int path, boolean force) implements Step {
    @Override
    public String toString() {
      return tab + " revert pick " + pick + " span " + span + (path < 0 ? "" : " path " + PATHS.get(path % PATHS.size()))
          + (force ? " (force)" : "");
    }
  }

  /** {@code restorePaths(pick, one or two paths)}, repeated by force when refused and {@code force}. */
  record RestorePaths(String tab, int pick, int path, boolean two, boolean force) implements Step {
    @Override
    public String toString() {
      return tab + " restore pick " + pick + " -- " + paths(path, two) + (force ? " (force)" : "");
    }
  }

  static Set<String> paths(int path, boolean two) {
    Set<String> paths = new TreeSet<>();
    paths.add(PATHS.get(path % PATHS.size()));
    if (two) {
      paths.add(PATHS.get((path + 1) % PATHS.size()));
    }
    return paths;
  }

  /** {@code begin}, the edits (the user's interleaved), {@code finish(DONE)}. */
  record AgentTurn(String tab, List<Edit> edits) implements Step {
    @Override
    public String toString() {
      return tab + " turn " + edits;
    }
  }

  /** {@code branchFrom(pick)} then a turn; when refused, by force if {@code force}. */
  record Branch(String tab, int pick, boolean force, List<Edit> edits) implements Step {
    @Override
    public String toString() {
      return tab + " branch from pick " + pick + (force ? " (force)" : "") + " " + edits;
    }
  }

  /** The user edits files directly. */
  record External(List<Edit> edits) implements Step {
    @Override
    public String toString() {
      return edits.stream().map(Edit::toString).collect(Collectors.joining(", ", "{", "}"));
    }
  }

  record Undo(String tab, boolean force) implements Step {
    @Override
    public String toString() {
      return tab + " undo" + (force ? " (force)" : "");
    }
  }

  /** Undo to the {@code pick}-th proper ancestor of live (mod their number). */
  record UndoTo(String tab, int pick, boolean force) implements Step {
    @Override
    public String toString() {
      return tab + " undo to ancestor pick " + pick + (force ? " (force)" : "");
    }
  }

  record Redo(String tab, boolean force) implements Step {
    @Override
    public String toString() {
      return tab + " redo" + (force ? " (force)" : "");
    }
  }

  /** Go to checkpoint {@code pick} (mod the tab's number of checkpoints). */
  record GoTo(String tab, int pick, boolean force) implements Step {
    @Override
    public String toString() {
      return tab + " goto pick " + pick + (force ? " (force)" : "");
    }
  }

  /** {@code restore(pick, FILES or CONVERSATION)}, repeated by force when refused and {@code force}. */
  record OneSided(String tab, int pick, boolean filesOnly, boolean force) implements Step {
    @Override
    public String toString() {
      return tab + " restore " + (filesOnly ? "files" : "conversation") + " pick " + pick + (force ? " force" : "");
    }
  }

  record Save(String tab, int name) implements Step {
    @Override
    public String toString() {
      return tab + " save s" + name;
    }
  }

  @Provide
  Arbitrary<List<Step>> scenarios() {
    // The first tab is busiest, so that its tree grows deep enough for branches and long undos.
    Arbitrary<String> tab = Arbitraries.frequency(Tuple.of(5, TABS.get(0)), Tuple.of(3, TABS.get(1)), Tuple.of(2, TABS.get(2)));
    Arbitrary<Integer> pick = Arbitraries.integers().between(0, 15);
    Arbitrary<Boolean> force = Arbitraries.of(false, true);
    Arbitrary<Edit> agent = edits(false);
    Arbitrary<Edit> user = edits(true);
    Arbitrary<List<Edit>> turn = Arbitraries.frequencyOf(Tuple.of(4, agent), Tuple.of(1, user)).list().ofMaxSize(4);
    Arbitrary<Step> step = Arbitraries.frequencyOf(
        Tuple.of(30, Combinators.combine(tab, turn).as(AgentTurn::new)),
        Tuple.of(14, user.list().ofMinSize(1).ofMaxSize(2).map(External::new)),
        Tuple.of(12, Combinators.combine(tab, force).as(Undo::new)),
        Tuple.of(6, Combinators.combine(tab, pick, force).as(UndoTo::new)),
        Tuple.of(10, Combinators.combine(tab, force).as(Redo::new)),
        Tuple.of(10, Combinators.combine(tab, pick, force).as(GoTo::new)),
        Tuple.of(8, Combinators.combine(tab, pick, force, turn).as(Branch::new)),
        Tuple.of(6, Combinators.combine(tab, pick, Arbitraries.of(true, false), force).as(OneSided::new)),
        Tuple.of(4, Combinators.combine(tab, Arbitraries.integers().between(0, 2)).as(Save::new)),
        Tuple.of(8, Combinators.combine(tab, pick, Arbitraries.frequency(Tuple.of(4, 0), Tuple.of(1, 1), Tuple.of(1, 2)),
            Arbitraries.frequency(Tuple.of(3, -1), Tuple.of(1, 0), Tuple.of(1, 1), Tuple.of(1, 3)), force).as(Revert::new)),
        Tuple.of(6, Combinators.combine(tab, pick, Arbitraries.integers().between(0, PATHS.size() - 1),
            Arbitraries.of(false, true), force).as(RestorePaths::new)));
    return step.list().ofMinSize(1).ofMaxSize(30).withSizeDistribution(atLeast(10));
  }

  /** Uniform sizes from {@code floor} up; shrinking may still go below it. */
  private static RandomDistribution atLeast(int floor) {
    return (genSize, min, max, center) -> RandomDistribution.uniform()
        .createGenerator(genSize, min.max(BigInteger.valueOf(floor)).min(max), max, center);
  }

  private static Arbitrary<Edit> edits(boolean byUser) {
    Arbitrary<Op> op = Arbitraries.frequency(
        Tuple.of(40, Op.LINES), Tuple.of(3, Op.EOL), Tuple.of(8, Op.TEXT), Tuple.of(2, Op.EMPTY), Tuple.of(2, Op.BINARY),
        Tuple.of(3, Op.LINK), Tuple.of(8, Op.DELETE), Tuple.of(6, Op.RENAME), Tuple.of(8, Op.CHMOD),
        Tuple.of(byUser ? 0 : 5, Op.REVERT));
    return Combinators.combine(op, Arbitraries.of(PATHS), Arbitraries.integers().between(0, 15))
        .as((o, path, arg) -> new Edit(byUser, o, path, arg));
  }

  // --------------------------------------------------------------------------- the property

  /*
   * Full shrinking: bounded shrinking abandons the try it is running when its time is up, on a
   * thread that goes on in the background, and that try's project would never be deleted.
   */
  @Property(tries = 1000, edgeCases = EdgeCasesMode.NONE, shrinking = ShrinkingMode.FULL)
  void theEngineDoesWhatTheModelSays(@ForAll("scenarios") List<Step> steps) throws IOException {
    try (World world = new World()) {
      for (int i = 0; i < steps.size(); i++) {
        Step step = steps.get(i);
        try {
          world.play(step);
          world.checkEverything();
        } catch (AssertionError | RuntimeException e) {
          throw new AssertionError("step " + (i + 1) + " of " + steps.size() + ": " + step
              + (world.resolved.isEmpty() ? "" : " = " + world.resolved) + "\n" + e.getMessage()
              + "\nmodel after the step:\n" + world.model, e);
        }
      }
      world.collectStatistics(steps.size());
    }
  }

  /**
   * The model's merge rule is the engine's ({@link TextMerge}, JGit's histogram merge) on the
   * texts the property generates: empty or eight position-named lines, lines replaced singly or
   * in pairs, on either side or both (then the same way), files emptied, final newlines dropped.
   */
  @Property(tries = 3000)
  void theModelsLineMergeIsTheEnginesMerge(@ForAll("mergeCases") MergeCase merge) {
    Optional<byte[]> expected = ReferenceModel.mergeText(merge.base(), merge.ours(), merge.theirs());
    Optional<byte[]> actual = TextMerge.merge(merge.base(), merge.ours(), merge.theirs());
    Statistics.label("merge").collect(expected.isPresent() ? "clean" : "conflict");
    assertThat(actual.map(bytes -> new String(bytes, StandardCharsets.UTF_8)))
        .as("%s", merge)
        .isEqualTo(expected.map(bytes -> new String(bytes, StandardCharsets.UTF_8)));
  }

  /** One three-way merge. */
  record MergeCase(byte[] base, byte[] ours, byte[] theirs) {
    @Override
    public String toString() {
      return "base " + show(base) + " ours " + show(ours) + " theirs " + show(theirs);
    }
  }

  /** What a side does after the changes both sides share. */
  enum Side { EDIT, EMPTY, TOGGLE_FINAL_NEWLINE }

  @Provide
  Arbitrary<MergeCase> mergeCases() {
    Arbitrary<String> base = Arbitraries.frequency(Tuple.of(1, ""), Tuple.of(5, lines("b")),
        Tuple.of(1, toggleFinalNewline(lines("b"))));
    Arbitrary<List<Integer>> edits = Arbitraries.integers().between(0, 2 * ReferenceModel.LINES - 1).list().ofMaxSize(2);
    Arbitrary<Side> side = Arbitraries.frequency(Tuple.of(6, Side.EDIT), Tuple.of(1, Side.EMPTY),
        Tuple.of(2, Side.TOGGLE_FINAL_NEWLINE));
    return Combinators.combine(base, edits, edits, edits, side, side).as((b, shared, o, t, oSide, tSide) -> {
      String common = edit(b, shared, "s");
      return new MergeCase(bytes(b), bytes(side(edit(common, o, "o"), oSide)), bytes(side(edit(common, t, "t"), tSide)));
    });
  }

  private static String side(String text, Side side) {
    switch (side) {
      case EMPTY:
        return "";
      case TOGGLE_FINAL_NEWLINE:
        return text.isEmpty() ? text : toggleFinalNewline(text);
      default:
        return text;
    }
  }

  /** Replaces the lines each edit picks; an empty text gets all its lines first. */
  private static String edit(String text, List<Integer> edits, String tag) {
    if (edits.isEmpty()) {
      return text;
    }
    String edited = text.isEmpty() ? lines("new-" + tag) : text;
    int k = 0;
    for (int edit : edits) {
      int first = edit % ReferenceModel.LINES;
      edited = replaceLines(edited, first, edit >= ReferenceModel.LINES ? first + 1 : first, tag + (k++));
    }
    return edited;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------------- generated texts

  /** A text of {@link ReferenceModel#LINES} lines, each naming its position: {@code "3:id"}. */
  static String lines(String id) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < ReferenceModel.LINES; i++) {
      s.append(i).append(':').append(id).append('\n');
    }
    return s.toString();
  }

  /** Replaces lines {@code first..last} (the last clipped) by new ones, keeping their newlines. */
  static String replaceLines(String text, int first, int last, String id) {
    List<String> lines = new ArrayList<>(ReferenceModel.lines(bytes(text)));
    for (int line = first; line <= Math.min(last, lines.size() - 1); line++) {
      lines.set(line, line + ":" + id + (lines.get(line).endsWith("\n") ? "\n" : ""));
    }
    return String.join("", lines);
  }

  static String toggleFinalNewline(String text) {
    return text.endsWith("\n") ? text.substring(0, text.length() - 1) : text + "\n";
  }

  private static String show(byte[] bytes) {
    return "\"" + new String(bytes, StandardCharsets.UTF_8).replace("\n", "|") + "\"";
  }

  // ------------------------------------------------------------------------------ the world

  /** A fresh project, Waymark home and three tabs, with the model beside them. */
  static final class World implements AutoCloseable {
    final Path temp;
    final Path project;
    final ShadowStore store;
    final Repository objects;
    final Map<String, CheckpointTree> trees = new LinkedHashMap<>();
    final ReferenceModel model = new ReferenceModel(TABS);
    final Map<String, Set<String>> rescueTags = new HashMap<>();
    final Map<String, Integer> counts = new TreeMap<>();
    int fresh;
    /** What the step being played does, with its picks resolved to checkpoint numbers. */
    String resolved = "";

    World() throws IOException {
      temp = Files.createTempDirectory(SCRATCH, "waymark-prop");
      project = Files.createDirectories(temp.resolve("project"));
      store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
      objects = new FileRepository(store.shadowDirectory().toFile());
      for (String id : TABS) {
        trees.put(id, store.openTab(id));
        rescueTags.put(id, new TreeSet<>());
      }
      // The project has some files before Waymark starts.
      userWrite("a.txt", text(Kind.REGULAR, "init"));
      userWrite("run.sh", text(Kind.EXECUTABLE, "init"));
      userWrite("src/m.txt", text(Kind.REGULAR, "init"));
    }

    // ---------------------------------------------------------------------- playing a step

    void play(Step step) throws IOException {
      resolved = "";
      if (step instanceof AgentTurn s) {
        count("turn");
        turn(s.tab(), trees.get(s.tab()).begin(), s.edits());
      } else if (step instanceof External s) {
        for (Edit edit : s.edits()) {
          userEdit(edit);
        }
      } else if (step instanceof Undo s) {
        restore(s.tab(), s.force(), () -> model.undo(s.tab()), () -> trees.get(s.tab()).undo());
      } else if (step instanceof UndoTo s) {
        List<Integer> ancestors = model.tab(s.tab()).ancestorsOfLive();
        int target = ancestors.isEmpty() ? model.tab(s.tab()).live.number : ancestors.get(s.pick() % ancestors.size());
        resolved = "undoTo(" + target + ")";
        restore(s.tab(), s.force(), () -> model.undoTo(s.tab(), target), () -> trees.get(s.tab()).undoTo(target));
      } else if (step instanceof Redo s) {
        restore(s.tab(), s.force(), () -> model.redo(s.tab()), () -> trees.get(s.tab()).redo());
      } else if (step instanceof GoTo s) {
        int target = s.pick() % model.tab(s.tab()).nodes.size();
        resolved = "goTo(" + target + ")";
        restore(s.tab(), s.force(), () -> model.goTo(s.tab(), target), () -> trees.get(s.tab()).goTo(target));
      } else if (step instanceof OneSided s) {
        int target = s.pick() % model.tab(s.tab()).nodes.size();
        RestoreMode mode = s.filesOnly() ? RestoreMode.FILES : RestoreMode.CONVERSATION;
        resolved = "restore(" + target + ", " + mode + ")";
        model.lastApplied = true;
        restore(s.tab(), false, () -> model.restore(s.tab(), target, s.filesOnly(), !s.filesOnly(), false),
            () -> trees.get(s.tab()).restore(target, mode, false));
        if (s.force() && !model.lastApplied) {
          count("forced restore");
          Outcome expected = model.restore(s.tab(), target, s.filesOnly(), !s.filesOnly(), true);
          checkRestore(s.tab(), expected, trees.get(s.tab()).restore(target, mode, true));
        }
      } else if (step instanceof Branch s) {
        branch(s);
      } else if (step instanceof Save s) {
        save(s.tab(), "s" + s.name());
      } else if (step instanceof Revert s) {
        List<Integer> path = model.tab(s.tab()).livePath();
        int firstAt = path.size() < 2 ? 0 : 1 + s.pick() % (path.size() - 1);
        int first = path.get(firstAt);
        int last = path.get(Math.min(firstAt + s.span(), path.size() - 1));
        Set<String> only = s.path() < 0 ? Set.of() : Set.of(PATHS.get(s.path() % PATHS.size()));
        resolved = "revert(" + first + ", " + last + ", " + only + ")";
        model.lastApplied = true;
        restore(s.tab(), false, () -> model.revert(s.tab(), first, last, only, false),
            () -> trees.get(s.tab()).revert(first, last, only, false));
        if (s.force() && !model.lastApplied) {
          count("forced restore");
          checkRestore(s.tab(), model.revert(s.tab(), first, last, only, true),
              trees.get(s.tab()).revert(first, last, only, true));
        }
      } else if (step instanceof RestorePaths s) {
        int target = s.pick() % model.tab(s.tab()).nodes.size();
        Set<String> only = paths(s.path(), s.two());
        resolved = "restorePaths(" + target + ", " + only + ")";
        model.lastApplied = true;
        restore(s.tab(), false, () -> model.restorePaths(s.tab(), target, only, false),
            () -> trees.get(s.tab()).restorePaths(target, only, false));
        if (s.force() && !model.lastApplied) {
          count("forced restore");
          checkRestore(s.tab(), model.restorePaths(s.tab(), target, only, true),
              trees.get(s.tab()).restorePaths(target, only, true));
        }
      } else {
        throw new IllegalArgumentException(step.toString());
      }
    }

    private void branch(Branch s) throws IOException {
      CheckpointTree tree = trees.get(s.tab());
      int target = s.pick() % model.tab(s.tab()).nodes.size();
      resolved = "branchFrom(" + target + ")";
      Outcome expected = model.goTo(s.tab(), target);
      CheckpointTree.BranchResult actual = tree.branchFrom(target);
      checkRestore(s.tab(), expected, actual.restore());
      assertThat(actual.turn().isPresent()).as("a branch opens a turn iff its restore was applied").isEqualTo(expected.applied());
      if (actual.turn().isPresent()) {
        turn(s.tab(), actual.turn().get(), s.edits());
      } else if (s.force()) {
        forced(s.tab(), target);
        turn(s.tab(), tree.begin(), s.edits());
      }
    }

    /** Plays a turn the engine has opened: the model opens it too, then the edits, then finish. */
    private void turn(String tab, Turn turn, List<Edit> edits) throws IOException {
      int number = model.begin(tab);
      assertThat(turn.number()).as("the new checkpoint's number").isEqualTo(number);
      for (Edit edit : edits) {
        if (edit.byUser()) {
          userEdit(edit);
        } else {
          agentEdit(tab, turn, edit);
        }
      }
      Checkpoint done = turn.finish(CheckpointStatus.DONE);
      ReferenceModel.Node node = model.finish(tab);
      checkCheckpoint(tab, done, node);
    }

    private void agentEdit(String tab, Turn turn, Edit edit) throws IOException {
      String author = tab + "-";
      if (edit.op() == Op.RENAME) {
        Content moving = model.disk(edit.path());
        if (!moving.exists()) {
          return;
        }
        agentWrite(tab, turn, edit.path(), Content.ABSENT);
        agentWrite(tab, turn, edit.destination(), moving);
        return;
      }
      Content next = edit.op() == Op.REVERT
          ? model.beforeInRunningTurn(tab, edit.path()).orElse(model.disk(edit.path()))
          : next(model.disk(edit.path()), edit, author);
      agentWrite(tab, turn, edit.path(), next);
    }

    /** As a tool does: read, record ahead what it will write, then write. */
    private void agentWrite(String tab, Turn turn, String path, Content content) throws IOException {
      FileState before = turn.read(path);
      Content modelBefore = model.disk(path);
      assertThat(toContent(before)).as("what the turn reads at %s", path).isEqualTo(modelBefore);
      turn.recordAhead(path, before, toState(content));
      put(path, content);
      model.write(path, content);
      model.record(tab, path, modelBefore, content);
    }

    private void userEdit(Edit edit) throws IOException {
      count("user edit");
      if (edit.op() == Op.RENAME) {
        Content moving = model.disk(edit.path());
        if (moving.exists()) {
          userWrite(edit.path(), Content.ABSENT);
          userWrite(edit.destination(), moving);
        }
        return;
      }
      userWrite(edit.path(), next(model.disk(edit.path()), edit, "u"));
    }

    private void userWrite(String path, Content content) throws IOException {
      put(path, content);
      model.write(path, content);
    }

    /** The content an edit makes of {@code now}; new lines are unique and name their position. */
    private Content next(Content now, Edit edit, String author) {
      Kind textKind = now.kind() == Kind.EXECUTABLE ? Kind.EXECUTABLE : Kind.REGULAR;
      String id = author + (++fresh);
      switch (edit.op()) {
        case LINES:
          if (!hasAllLines(now)) {
            return text(textKind, id);
          }
          return Content.of(now.kind(), replaceLines(string(now), edit.firstLine(), edit.lastLine(), id));
        case EOL:
          return hasAllLines(now) ? Content.of(now.kind(), toggleFinalNewline(string(now))) : text(textKind, id);
        case TEXT:
          return text(textKind, id);
        case EMPTY:
          return new Content(textKind, new byte[0]);
        case BINARY:
          return Content.of(textKind, "bin\0" + id + "\0\1\2");
        case LINK:
          // Half the links dangle; the others point at files or a directory of the project (or
          // out of it), which no write may follow.
          return Content.of(Kind.SYMLINK, edit.arg() % 2 == 0 ? "nowhere/" + id
              : LINK_TARGETS.get(edit.arg() / 2 % LINK_TARGETS.size()));
        case DELETE:
          return Content.ABSENT;
        case CHMOD:
          return now.kind() == Kind.REGULAR ? new Content(Kind.EXECUTABLE, now.bytes())
              : now.kind() == Kind.EXECUTABLE ? new Content(Kind.REGULAR, now.bytes()) : now;
        default:
          throw new IllegalArgumentException(edit.toString());
      }
    }

    private static Content text(Kind kind, String id) {
      return Content.of(kind, lines(id));
    }

    private static boolean hasAllLines(Content content) {
      return content.isText() && ReferenceModel.lines(content.bytes()).size() == ReferenceModel.LINES;
    }

    private static String string(Content content) {
      return new String(content.bytes(), StandardCharsets.UTF_8);
    }

    private void restore(String tab, boolean force, Supplier<Outcome> onModel, Supplier<RestoreResult> onEngine) {
      Outcome expected;
      try {
        expected = onModel.get();
      } catch (Refused refused) {
        count("refused operation");
        assertThatThrownBy(onEngine::get).as("the engine refuses: %s", refused.getMessage())
            .isInstanceOf(CheckpointException.class);
        return;
      }
      RestoreResult actual = onEngine.get();
      checkRestore(tab, expected, actual);
      if (!expected.applied() && force) {
        forced(tab, expected.target());
      }
    }

    private void forced(String tab, int target) {
      count("forced restore");
      Outcome expected = model.restore(tab, target, true, true, true);
      RestoreResult actual = trees.get(tab).restore(target, RestoreMode.BOTH, true);
      checkRestore(tab, expected, actual);
    }

    private void save(String tab, String name) throws IOException {
      try {
        model.save(tab, name);
      } catch (Refused refused) {
        assertThatThrownBy(() -> trees.get(tab).save(name)).isInstanceOf(CheckpointException.class);
        return;
      }
      count("save");
      trees.get(tab).save(name);
      Map<String, Content> expected = new TreeMap<>();
      model.stateAt(tab, model.tab(tab).live.number).forEach((path, content) -> {
        if (content.exists()) {
          expected.put("post/" + path, content);
        }
      });
      assertThat(tree(TagNames.tabPrefix(tab) + "saved/" + name)).as("the files of save %s", name).isEqualTo(expected);
    }

    // ------------------------------------------------------------------------------ checks

    private void checkRestore(String tab, Outcome expected, RestoreResult actual) {
      count(expected.applied() ? "restore applied" : "restore refused");
      if (!expected.merged().isEmpty()) {
        count("restore with a merge");
      }
      boolean rescued = expected.applied() && !expected.conflicts().isEmpty();
      assertThat(Reported.of(actual)).as("what the restore reports").isEqualTo(new Reported(expected.applied(),
          expected.from(), expected.target(), expected.written(), expected.merged(), expected.conflicts(), rescued,
          expected.livePath()));
      if (rescued) {
        String tag = actual.rescueTag().get();
        assertThat(tag).startsWith(TagNames.tabPrefix(tab) + "rescued/");
        Map<String, Content> kept = new TreeMap<>();
        expected.rescued().forEach((path, content) -> {
          if (content.exists()) {
            kept.put("disk/" + path, content);
          }
        });
        assertThat(tree(tag)).as("what the rescue tag %s keeps", tag).isEqualTo(kept);
        rescueTags.get(tab).add(tag.substring(TagNames.tabPrefix(tab).length()));
      }
    }

    /** A restore's result, the rescue tag reduced to whether there is one. */
    record Reported(boolean applied, int from, int target, List<String> written, List<String> merged,
        List<String> conflicts, boolean rescueTag, List<Integer> livePath) {
      static Reported of(RestoreResult r) {
        return new Reported(r.applied(), r.from(), r.target(), r.written(), r.merged(), r.conflicts(),
            r.rescueTag().isPresent(), r.livePath());
      }
    }

    private void checkCheckpoint(String tab, Checkpoint actual, ReferenceModel.Node expected) throws IOException {
      assertThat(actual.number()).isEqualTo(expected.number);
      assertThat(actual.parent()).isEqualTo(expected.parent.number);
      Map<String, List<Content>> actualChanges = new TreeMap<>();
      for (FileChange change : actual.changes()) {
        actualChanges.put(change.path(), List.of(content(change.before()), content(change.after())));
      }
      Map<String, List<Content>> expectedChanges = new TreeMap<>();
      expected.changes.forEach((path, change) -> expectedChanges.put(path, List.of(change.before(), change.after())));
      assertThat(actualChanges).as("the folded changes of %s #%d", tab, expected.number).isEqualTo(expectedChanges);
      if (expected.changes.isEmpty()) {
        assertThat(actual.tag()).as("a checkpoint without changes has no tag").isEmpty();
        return;
      }
      count("checkpoint with changes");
      assertThat(actual.tag()).contains(TagNames.tabPrefix(tab) + expected.number);
      Map<String, Content> stored = new TreeMap<>();
      expected.changes.forEach((path, change) -> {
        if (change.before().exists()) {
          stored.put("pre/" + path, change.before());
        }
        if (change.after().exists()) {
          stored.put("post/" + path, change.after());
        }
      });
      assertThat(tree(actual.tag().get())).as("the commit of %s #%d", tab, expected.number).isEqualTo(stored);
    }

    void checkEverything() throws IOException {
      for (String path : PATHS) {
        assertThat(readDisk(path)).as("%s on disk", path).isEqualTo(model.disk(path));
      }
      assertThat(projectFiles()).as("the files in the project").isEqualTo(model.existingPaths());
      for (ReferenceModel.Tab tab : model.tabs()) {
        CheckpointTree tree = trees.get(tab.id);
        assertThat(tree.running()).as("%s runs no turn", tab.id).isEmpty();
        assertThat(tree.live()).as("%s live", tab.id).isEqualTo(tab.live.number);
        assertThat(tree.filesAt()).as("%s files at", tab.id).isEqualTo(tab.files.number);
        assertThat(tree.redoable()).as("%s redoable", tab.id).isEqualTo(tab.redoable());
        assertThat(tree.livePath()).as("%s live path", tab.id).isEqualTo(tab.livePath());
        assertThat(tree.checkpoints()).as("%s checkpoints: number, parent, status", tab.id)
            .extracting(c -> c.number() + "<" + c.parent() + " " + c.status())
            .isEqualTo(tab.nodes.stream().map(n -> n.number + "<" + (n.parent == null ? -1 : n.parent.number) + " DONE").toList());
        int pick = (counts.getOrDefault("turn", 0) + tab.nodes.size()) % tab.nodes.size();
        for (int number : new TreeSet<>(List.of(tab.files.number, tab.live.number, pick))) {
          Set<String> differing = new TreeSet<>();
          model.versionsAt(tab.id, number).forEach((path, version) -> {
            if (!model.disk(path).equals(version)) {
              differing.add(path);
            }
          });
          assertThat(tree.diff(number).files()).as("%s diff #%d lists what differs on disk", tab.id, number)
              .extracting(CheckpointDiff.FileDiff::path).containsExactlyElementsOf(differing);
        }
        Set<String> tags = new TreeSet<>(tab.expectedTags());
        tags.addAll(rescueTags.get(tab.id));
        assertThat(tagsOf(tab.id)).as("%s tags", tab.id).isEqualTo(tags);
      }
    }

    void collectStatistics(int steps) {
      Statistics.label("steps").collect(steps < 10 ? "1-9" : steps < 20 ? "10-19" : "20-30");
      for (String what : List.of("restore with a merge", "restore refused", "forced restore", "save",
          "checkpoint with changes", "refused operation")) {
        Statistics.label(what).collect(counts.getOrDefault(what, 0) > 0);
      }
      for (String situation : SITUATIONS) {
        Statistics.label(situation).collect(model.situations().contains(situation));
      }
      // The generator must keep reaching what matters (about a third of what it reaches now).
      coverage("restore with a merge", 5);
      coverage("forced restore", 15);
      coverage("merge keeping the disk's mode", 2);
      coverage("conflict: deleted on disk", 5);
      coverage("conflict: text clash", 10);
      coverage("conflict: not text", 10);
      coverage("files move across branches", 5);
      coverage("one-sided restore", 15);
      coverage("revert", 10);
      coverage("revert of a range", 3);
      coverage("revert of one file", 3);
      coverage("restore of single files", 10);
      coverage("undo onto a non-empty redo stack", 5);
      coverage("goto pops several redo nodes", 1);
      coverage("records fold away", 5);
      coverage("record after someone else's edit in the turn", 1);
      coverage("save", 15);
      assertThat(SITUATIONS).as("every situation the model notes is listed").containsAll(model.situations());
    }

    private static void coverage(String label, double minPercent) {
      Statistics.label(label).coverage(c -> c.check(true).percentage(p -> p >= minPercent));
    }

    private void count(String what) {
      counts.merge(what, 1, Integer::sum);
    }

    // --------------------------------------------------------------------------- plumbing

    private Set<String> tagsOf(String tab) {
      String prefix = TagNames.tabPrefix(tab);
      return store.repo().refs(prefix).stream().map(Ref::getName).map(name -> name.substring(prefix.length()))
          .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The files of a tagged commit, but its manifest. */
    private Map<String, Content> tree(String tag) {
      Map<String, Content> files = new TreeMap<>();
      ObjectId commit = store.repo().resolve(tag);
      assertThat(commit).as("tag %s", tag).isNotNull();
      try (RevWalk walk = new RevWalk(objects); TreeWalk tree = new TreeWalk(objects)) {
        tree.addTree(walk.parseCommit(commit).getTree());
        tree.setRecursive(true);
        while (tree.next()) {
          if (tree.getPathString().equals("waymark.json")) {
            continue;
          }
          files.put(tree.getPathString(), new Content(kindOf(tree.getFileMode(0)), objects.open(tree.getObjectId(0)).getBytes()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return files;
    }

    private static Kind kindOf(FileMode mode) {
      if (mode == FileMode.REGULAR_FILE) {
        return Kind.REGULAR;
      }
      if (mode == FileMode.EXECUTABLE_FILE) {
        return Kind.EXECUTABLE;
      }
      if (mode == FileMode.SYMLINK) {
        return Kind.SYMLINK;
      }
      throw new AssertionError("unexpected mode " + mode);
    }

    private Content content(FileVersion version) throws IOException {
      if (!version.exists()) {
        return Content.ABSENT;
      }
      return new Content(Kind.valueOf(version.kind().name()), objects.open(version.blob()).getBytes());
    }

    private static Content toContent(FileState state) {
      return state.exists() ? new Content(Kind.valueOf(state.kind().name()), state.content()) : Content.ABSENT;
    }

    /** What {@link #put} leaves at a path, as a tool describes it before writing. */
    private static FileState toState(Content content) {
      switch (content.kind()) {
        case ABSENT:
          return FileState.absent();
        case SYMLINK:
          return FileState.symlink(new String(content.bytes(), StandardCharsets.UTF_8));
        case EXECUTABLE:
          return FileState.withMode(content.bytes(), 0755);
        default:
          return FileState.withMode(content.bytes(), 0644);
      }
    }

    /** Puts {@code content} at {@code path} as a user's program would. */
    private void put(String path, Content content) throws IOException {
      Path file = project.resolve(path);
      Files.deleteIfExists(file); // never write through a link
      if (!content.exists()) {
        return;
      }
      Files.createDirectories(file.getParent());
      if (content.kind() == Kind.SYMLINK) {
        Files.createSymbolicLink(file, Path.of(new String(content.bytes(), StandardCharsets.UTF_8)));
        return;
      }
      Files.write(file, content.bytes());
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(
          content.kind() == Kind.EXECUTABLE ? "rwxr-xr-x" : "rw-r--r--"));
    }

    /** Reads {@code path} without following links. */
    private Content readDisk(String path) throws IOException {
      Path file = project.resolve(path);
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException e) {
        return Content.ABSENT;
      }
      if (attributes.isSymbolicLink()) {
        return Content.of(Kind.SYMLINK, Files.readSymbolicLink(file).toString());
      }
      assertThat(attributes.isRegularFile()).as("%s is a file", path).isTrue();
      boolean executable = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)
          .contains(PosixFilePermission.OWNER_EXECUTE);
      return new Content(executable ? Kind.EXECUTABLE : Kind.REGULAR, Files.readAllBytes(file));
    }

    private Set<String> projectFiles() throws IOException {
      try (Stream<Path> walk = Files.walk(project)) {
        return walk.filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
            .map(p -> project.relativize(p).toString()).collect(Collectors.toCollection(TreeSet::new));
      }
    }

    @Override
    public void close() throws IOException {
      objects.close();
      store.close();
      try (Stream<Path> walk = Files.walk(temp)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
