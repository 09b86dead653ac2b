package dev.waymark.core.subagent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.Tuple;

/**
 * Random sequences of parent turns with 0-3 subagents, the user's own turns in those subagents'
 * tabs and their undo, the user's edits on disk, undo then redo in any tab, goto in the parent, and
 * turns, land, land --keep-isolated and discard in a tab opened isolated, against a reference model: what the project holds and where each tab stands when the parent stood at each
 * of its checkpoints. After every step the project's bytes and each tab's position are the model's,
 * undo then redo in any tab gives back the same project and positions, and what the user wrote on
 * disk is still there.
 */
class TabsReferenceModelProperties {
  private static final int TRIES = 20;

  /** What one step does; {@code n} picks the subagents spawned, the child, the checkpoint or the text. */
  enum Kind {
    PARENT_TURN, CHILD_TURN, USER_EDIT, UNDO_REDO_PARENT, UNDO_REDO_CHILD, GOTO_PARENT, ISOLATED_TURN, LAND, DISCARD, UNDO_CHILD
  }

  record Step(Kind kind, int n) {}

  Arbitrary<List<Step>> steps() {
    Arbitrary<Kind> kind = Arbitraries.frequency(
        Tuple.of(4, Kind.PARENT_TURN), Tuple.of(3, Kind.CHILD_TURN),
        Tuple.of(2, Kind.USER_EDIT), Tuple.of(2, Kind.UNDO_REDO_PARENT),
        Tuple.of(2, Kind.UNDO_REDO_CHILD), Tuple.of(3, Kind.GOTO_PARENT),
        Tuple.of(2, Kind.ISOLATED_TURN), Tuple.of(1, Kind.LAND), Tuple.of(1, Kind.DISCARD), Tuple.of(2, Kind.UNDO_CHILD));
    return Combinators.combine(kind, Arbitraries.integers().between(0, 11)).as(Step::new).list().ofMinSize(3)
        .ofMaxSize(9);
  }

  /**
   * jqwik's tries are fixed where it reads its annotation, so the tries are drawn here: {@value
   * #TRIES} in CI, {@code -Dproperties.tries=N} for a longer run; a failing try names its steps.
   */
  @Example
  void parentsChildrenAndTheUserMoveAsTheModelSays() throws Exception {
    List<List<Step>> tries = steps().sampleStream().limit(Integer.getInteger("properties.tries", TRIES)).toList();
    for (List<Step> steps : tries) {
      Path temp = Files.createTempDirectory("tabs-model");
      try (World world = new World(temp, steps)) {
        world.play();
      } catch (AssertionError e) {
        throw new AssertionError("with " + steps + ": " + e.getMessage(), e);
      } finally {
        try (Stream<Path> all = Files.walk(temp)) {
          all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
      }
    }
  }

  /** The engine under test and the model beside it. */
  private static final class World implements AutoCloseable {
    private final Path temp;
    private final Path project;
    private final ShadowStore store;
    private final List<Step> steps;
    private final List<String> played = new ArrayList<>();
    private Workspace workspace;
    private WorkspaceTab parent;

    // the model
    private final Map<String, String> userFiles = new TreeMap<>(); // what the user wrote on disk
    private final Map<String, Integer> positions = new LinkedHashMap<>(); // each child's live checkpoint
    private final Map<String, Integer> nextNumber = new HashMap<>(); // each child's next checkpoint
    private final Map<String, List<String>> spawnedBy = new HashMap<>(); // "parent checkpoint": its children's prompts
    private final Map<Integer, Integer> parentOf = new HashMap<>(); // the parent's tree
    private final Map<String, Integer> spawn = new HashMap<>(); // each child's parent checkpoint
    private final Map<String, Integer> firstOwn = new HashMap<>(); // each child's first checkpoint the user's own
    private final Map<String, Integer> stood = new HashMap<>(); // where each child stood when taken back
    private WorkspaceTab apart; // a tab opened isolated, as /tab isolated does
    private final Map<String, String> apartView = new TreeMap<>(); // what it wrote and has not landed
    private final Map<String, String> apartLanded = new TreeMap<>(); // what it landed, or wrote once it was not isolated
    private boolean apartIsolated = true;
    private int apartLive;
    private int apartNext = 1;
    private final Map<String, Integer> childParent = new HashMap<>(); // "child#n": its parent checkpoint
    private final Map<String, String> childFile = new HashMap<>(); // "child#n": the file its user turn wrote
    private int parentLive;
    private int parentNext = 1;

    /** The agents' files and the children's positions, as they were while the parent stood at one checkpoint. */
    record Snapshot(Map<String, String> files, Map<String, Integer> positions) {}

    World(Path temp, List<Step> steps) throws Exception {
      this.temp = temp;
      this.project = Files.createDirectories(temp.resolve("project"));
      this.store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
      this.steps = steps;
    }

    private String script() {
      StringBuilder s = new StringBuilder("{'responses':[");
      for (int i = 0; i < steps.size(); i++) {
        Step step = steps.get(i);
        if (step.kind() == Kind.PARENT_TURN) {
          int count = step.n() % 4;
          if (count > 0) {
            s.append("{'whenLastUser':'P").append(i).append(":','toolCalls':[");
            for (int j = 0; j < count; j++) {
              s.append(j > 0 ? "," : "").append("{'name':'task','arguments':{'description':'c").append(i).append('_')
                  .append(j).append("','prompt':'C").append(i).append('_').append(j).append(": write','isolated':")
                  .append(isolated(step)).append("}}");
            }
            s.append("]},");
            for (int j = 0; j < count; j++) {
              String c = "C" + i + "_" + j;
              s.append(write(c + ":", c.toLowerCase() + ".txt", c)).append(",{'whenLastUser':'").append(c)
                  .append(":','text':'done'},");
            }
          }
          s.append("{'whenLastUser':'P").append(i).append(":','text':'done'},");
        } else if (step.kind() == Kind.ISOLATED_TURN) {
          String u = "I" + i;
          s.append(write(u + ":", u.toLowerCase() + ".txt", u)).append(",{'whenLastUser':'").append(u)
              .append(":','text':'done'},");
        } else if (step.kind() == Kind.CHILD_TURN) {
          String u = "U" + i;
          s.append(write(u + ":", u.toLowerCase() + ".txt", u)).append(",{'whenLastUser':'").append(u)
              .append(":','text':'done'},");
        }
      }
      return (s.toString().replaceAll(",$", "") + "]}").replace('\'', '"');
    }

    /** Whether a parent turn's subagents work in views of their own, landed when each is done. */
    private static boolean isolated(Step step) {
      return step.n() >= 6;
    }

    private static String write(String when, String path, String content) {
      return "{'whenLastUser':'" + when + "','toolCalls':[{'name':'write_file','arguments':{'path':'" + path
          + "','content':'" + content + "\\n'}}]}";
    }

    void play() throws Exception {
      ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.parse(script(), "test"));
      List<Tool> all = new ArrayList<>(Tools.standard().all());
      WorkspaceSubagents.ChildTabs children = (tree, from, agent) -> TabSession.of(tree, project, model,
          ChildSetup.tools(Toolset.of(all), agent), ChildSetup.settings(from.settings(), agent), TabMemory.EMPTY,
          from.permissions());
      WorkspaceSubagents subagents = new WorkspaceSubagents(children, 4, () -> List.of(AgentDefinition.GENERAL));
      all.add(new TaskTool(subagents));
      workspace = new Workspace(store, "scripted", (tree, memory) -> subagents.watched(TabSession.of(tree, project,
          model, Toolset.of(all), new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory)));
      subagents.attach(workspace);
      workspace.isolateWith(ToolSettings.DEFAULTS.withSandbox(Bwrap.required(
          SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")))).sandbox().bwrap());
      parent = workspace.newTab();
      apart = workspace.newIsolatedTab();
      for (int i = 0; i < steps.size(); i++) {
        step(i, steps.get(i));
        check("after " + played);
      }
    }

    private void step(int i, Step step) throws Exception {
      switch (step.kind()) {
        case PARENT_TURN -> {
          run(parent, "P" + i + ": go");
          int number = parentNext++;
          parentOf.put(number, parentLive);
          parentLive = number;
          List<String> prompts = new ArrayList<>();
          for (int j = 0; j < step.n() % 4; j++) {
            String c = "C" + i + "_" + j;
            prompts.add(c);
            spawn.put(c, number);
            firstOwn.put(c, isolated(step) ? 3 : 2);
            childParent.put(c + "#1", 0);
            childParent.put(c + "#2", 1);
            childFile.put(c + "#" + (isolated(step) ? 2 : 1), c.toLowerCase() + ".txt");
            positions.put(c, isolated(step) ? 2 : 1); // an isolated subagent's land is its #2
            nextNumber.put(c, isolated(step) ? 3 : 2);
          }
          spawnedBy.put("" + number, prompts);
          played.add("parent turn #" + number + " with " + prompts.size() + (isolated(step) ? " isolated" : "")
              + " subagents");
        }
        case CHILD_TURN -> {
          List<String> here = spawnedBy.getOrDefault("" + parentLive, List.of());
          if (here.isEmpty()) {
            return;
          }
          String c = here.get(step.n() % here.size());
          run(child(c), "U" + i + ": write");
          int number = nextNumber.merge(c, 1, Integer::sum) - 1;
          childParent.put(c + "#" + number, positions.get(c));
          childFile.put(c + "#" + number, ("U" + i).toLowerCase() + ".txt");
          positions.put(c, number);
          played.add("user turn #" + positions.get(c) + " in " + c);
        }
        case USER_EDIT -> {
          String file = "user" + step.n() % 3 + ".txt";
          Files.writeString(project.resolve(file), "user " + i + "\n");
          userFiles.put(file, "user " + i + "\n");
          played.add("user writes " + file);
        }
        case UNDO_REDO_PARENT -> {
          if (parentLive == 0) {
            return;
          }
          played.add("undo in the parent");
          restore(parent, new Command.Undo(OptionalInt.empty(), false));
          Map<String, Integer> moved = moved(parentOf.get(parentLive), false);
          Snapshot back = new Snapshot(files(moved), moved);
          check("after " + played, back, parentOf.get(parentLive));
          played.add("redo in the parent");
          restore(parent, new Command.Redo(false));
        }
        case UNDO_REDO_CHILD -> {
          List<String> live = positions.entrySet().stream().filter(e -> e.getValue() > 0).map(Map.Entry::getKey).toList();
          if (live.isEmpty()) {
            return;
          }
          String c = live.get(step.n() % live.size());
          played.add("undo then redo in " + c);
          restore(child(c), new Command.Undo(OptionalInt.empty(), false));
          restore(child(c), new Command.Redo(false));
        }
        case ISOLATED_TURN -> {
          run(apart, "I" + i + ": write");
          (apartIsolated ? apartView : apartLanded).put(("I" + i).toLowerCase() + ".txt", "I" + i + "\n");
          apartLive = apartNext++;
          played.add("turn #" + apartLive + " in the isolated tab");
        }
        case LAND -> {
          if (!apartIsolated || apartView.isEmpty()) {
            return;
          }
          boolean keep = step.n() % 2 == 0;
          restore(apart, new Command.Land(keep));
          apartLanded.putAll(apartView);
          apartView.clear();
          apartIsolated = keep;
          apartLive = apartNext++;
          played.add((keep ? "land --keep-isolated" : "land") + " as #" + apartLive);
        }
        case DISCARD -> {
          if (!apartIsolated || apartView.isEmpty()) {
            return;
          }
          restore(apart, new Command.Discard());
          apartView.clear();
          apartLive = apartNext++;
          played.add("discard as #" + apartLive);
        }
        case UNDO_CHILD -> {
          List<String> here = spawnedBy.getOrDefault("" + parentLive, List.of()).stream()
              .filter(c -> positions.get(c) >= firstOwn.get(c)).toList(); // a user's turn
          if (here.isEmpty()) {
            return;
          }
          String c = here.get(step.n() % here.size());
          restore(child(c), new Command.Undo(OptionalInt.empty(), false));
          int back = childParent.get(c + "#" + positions.get(c));
          positions.put(c, back);
          played.add("undo in " + c + " to #" + back);
        }
        case GOTO_PARENT -> {
          List<Integer> known = Stream.concat(Stream.of(0), parentOf.keySet().stream()).sorted().toList();
          int to = known.get(step.n() % known.size());
          if (to == parentLive) {
            return;
          }
          played.add("goto #" + to + " in the parent");
          restore(parent, new Command.GoTo(to, false));
          positions.putAll(moved(to, true));
          parentLive = to;
        }
      }
    }

    private void check(String when) throws Exception {
      check(when, new Snapshot(files(positions), positions), parentLive);
    }

    /**
     * Where the children stand once the parent goes to {@code to}: one whose parent checkpoint the
     * parent leaves goes back to #0, one whose it comes to goes where it stood when taken back, and
     * the others stay.
     */
    private Map<String, Integer> moved(int to, boolean remember) {
      List<Integer> from = path(parentLive);
      List<Integer> there = path(to);
      Map<String, Integer> moved = new TreeMap<>(positions);
      for (String c : positions.keySet()) {
        boolean was = from.contains(spawn.get(c));
        boolean is = there.contains(spawn.get(c));
        if (was && !is) {
          if (remember) {
            stood.put(c, positions.get(c));
          }
          moved.put(c, 0);
        } else if (!was && is) {
          moved.put(c, stood.get(c));
        }
      }
      return moved;
    }

    private List<Integer> path(int n) {
      List<Integer> path = new ArrayList<>();
      for (Integer at = n; at != null; at = parentOf.get(at)) {
        path.add(at);
      }
      return path;
    }

    /** What the children's checkpoints up to where each stands wrote. */
    private Map<String, String> files(Map<String, Integer> at) {
      Map<String, String> files = new TreeMap<>();
      at.forEach((c, live) -> {
        for (Integer n = live; n != null && n > 0; n = childParent.get(c + "#" + n)) {
          String file = childFile.get(c + "#" + n);
          if (file != null) {
            files.put(file, file.replace(".txt", "").toUpperCase() + "\n");
          }
        }
      });
      return files;
    }

    /** The project holds the agents' files of {@code expected} and the user's, and each tab stands where it says. */
    private void check(String when, Snapshot expected, int parentAt) throws Exception {
      Map<String, String> files = new TreeMap<>(expected.files());
      Map<String, Integer> where = new TreeMap<>();
      positions.keySet().forEach(c -> where.put(c, expected.positions().getOrDefault(c, 0)));
      files.putAll(apartLanded);
      files.putAll(userFiles);
      assertThat(projectFiles()).as("the project %s", when).isEqualTo(files);
      assertThat(parent.session().snapshot().live()).as("the parent's position %s", when).isEqualTo(parentAt);
      assertThat(apart.session().snapshot().live()).as("the isolated tab's position %s", when).isEqualTo(apartLive);
      assertThat(apart.session().checkpoints().viewDiffers()).as("what waits in the isolated tab's view %s", when)
          .isEqualTo(apartView.size());
      Map<String, Integer> actual = new TreeMap<>();
      positions.keySet().forEach(c -> actual.put(c, child(c).session().snapshot().live()));
      assertThat(actual).as("the children's positions %s", when).isEqualTo(where);
    }

    private Map<String, String> projectFiles() throws Exception {
      Map<String, String> files = new TreeMap<>();
      try (Stream<Path> all = Files.list(project)) {
        for (Path p : all.filter(Files::isRegularFile).toList()) {
          files.put(p.getFileName().toString(), Files.readString(p));
        }
      }
      return files;
    }

    private WorkspaceTab child(String prompt) {
      return workspace.tabs().stream().filter(t -> t.subagentOf().isPresent())
          .filter(t -> t.session().memory().messages().getOrDefault(1, List.of()).stream()
          .anyMatch(m -> m.toString().contains(prompt + ":"))).findFirst().orElseThrow();
    }

    private void run(WorkspaceTab tab, String prompt) throws Exception {
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      tab.session().subscribe(events::add);
      tab.session().submit(new Command.SendPrompt(prompt));
      while (true) {
        Event e = events.poll(30, TimeUnit.SECONDS);
        assertThat(e).as("the turn %s ends in time", prompt).isNotNull();
        assertThat(e).as("in the turn %s", prompt).isNotInstanceOf(Event.Error.class);
        if (e instanceof Event.TurnFinished) {
          settle();
          return;
        }
      }
    }

    private void restore(WorkspaceTab tab, Command command) throws Exception {
      LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
      tab.session().subscribe(events::add);
      tab.session().submit(command);
      while (true) {
        Event e = events.poll(30, TimeUnit.SECONDS);
        assertThat(e).as("%s ends in time", command).isNotNull();
        assertThat(e).as("%s", command).isNotInstanceOf(Event.Error.class);
        if (e instanceof Event.CheckpointRestored r) {
          settle();
          assertThat(r.result().applied()).as("%s: %s", command, r.result().summary()).isTrue();
          return;
        }
      }
    }

    private void settle() throws Exception {
      for (WorkspaceTab t : workspace.tabs()) {
        t.session().idle().get(30, TimeUnit.SECONDS);
      }
    }

    @Override
    public void close() {
      if (workspace != null) {
        workspace.close();
      }
      store.close();
    }
  }
}
