package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.eclipse.jgit.util.FileUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The headless session and checkpoint commands, as a script runs them: the shaded jar in its own
 * process, against sessions that {@code waymark exec} made, checked on disk and with the real git.
 */
class HeadlessCommandsIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCRIPT = "{'responses':["
      + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one\\n'}}]},"
      + "{'whenLastUser':'one','text':'Wrote one.'},"
      + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'two\\n'}}]},"
      + "{'whenLastUser':'two','text':'Wrote two.'},"
      + "{'whenLastUser':'other','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'b\\n'}}]},"
      + "{'whenLastUser':'other','text':'Wrote b.'}]}";

  @TempDir Path temp;
  Path home;
  Path project;
  Path script;

  record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    home = temp.resolve("home");
    project = Files.createDirectories(temp.resolve("project"));
    script = temp.resolve("script.json");
    Files.writeString(script, SCRIPT.replace('\'', '"'));
  }

  private Run waymark(String... args) throws Exception {
    return waymarkIn("main", args);
  }

  /** Runs waymark with its output in files named after {@code name}, so that several can run at once. */
  private Run waymarkIn(String name, String... args) throws Exception {
    ProcessBuilder pb = Waymark.process(temp, home, project, Waymark.command(List.of(), List.of(args)));
    String unique = name + "-" + UUID.randomUUID();
    Path out = temp.resolve("out-" + unique + ".txt");
    Path err = temp.resolve("err-" + unique + ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("waymark " + String.join(" ", args) + " did not end");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  private Run exec(String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("exec", "--script", script.toString(), "--approval", "yolo"));
    args.addAll(List.of(more));
    Run run = waymark(args.toArray(String[]::new));
    assertThat(run.exit()).as(run.err()).isZero();
    return run;
  }

  private String git(String... args) throws Exception {
    return Waymark.gitOk(home, args);
  }


  private String file(String name) throws Exception {
    return Files.readString(project.resolve(name));
  }

  @Test
  void anExecKilledInTheMiddleOfItsFirstTurnLeavesASessionWhoseCheckpointCanBeUndone() throws Exception {
    Files.writeString(project.resolve("a.txt"), "mine\n");
    Path slow = temp.resolve("slow.json");
    Files.writeString(slow, "{'responses':[{'toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'agent\\n'}}]},"
        .replace('\'', '"') + "{\"delayMs\":60000,\"text\":\"never\"}]}");
    Process p = Waymark.process(temp, home, project,
        Waymark.command(List.of(), List.of("exec", "--script", slow.toString(), "--approval", "yolo", "change a")))
        .redirectOutput(temp.resolve("killed-out.txt").toFile()).redirectError(temp.resolve("killed-err.txt").toFile()).start();
    try {
      Eventually.until("the agent wrote a.txt", () -> Files.readString(project.resolve("a.txt")).equals("agent\n"));
    } finally {
      p.destroyForcibly(); // SIGKILL, in the middle of the turn
      p.waitFor(10, TimeUnit.SECONDS);
    }

    JsonNode list = waymark("checkpoints", "list", "--json").json();
    assertThat(list.toString()).contains("\"cancelled\"");
    Run undo = waymark("checkpoints", "undo");
    assertThat(undo.exit()).as(undo.err()).isZero();
    assertThat(file("a.txt")).as("the user's version is back").isEqualTo("mine\n");
  }

  @Test
  void aWaymarkKilledWhileItsShellCommandRunsRecordsTheCommandsChangesAtTheNextStart() throws Exception {
    Files.writeString(project.resolve("a.txt"), "mine\n");
    // in the sandbox a command cannot see, let alone kill, the Waymark that runs it: this one runs outside
    Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(temp.resolve("config/waymark/settings.json"), "{\"sandbox\": {\"mode\": \"off\"}}");
    Path killer = temp.resolve("killer.json");
    // the command changes files, then kills the Waymark that runs it (its parent), before it can record
    Files.writeString(killer, ("{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':"
        + "'echo agent > a.txt; echo new > b.txt; kill -9 $PPID; sleep 5'}}]},{'text':'never'}]}").replace('\'', '"'));
    Run killed = waymark("exec", "--script", killer.toString(), "--approval", "yolo", "change a");
    assertThat(killed.exit()).as("killed by its own command").isEqualTo(137);
    assertThat(file("a.txt")).isEqualTo("agent\n");

    Run undo = waymark("checkpoints", "undo");
    assertThat(undo.exit()).as(undo.err()).isZero();
    assertThat(undo.err()).contains("checkpoint #1 now holds 2 file changes of a shell command");
    assertThat(file("a.txt")).as("the user's version is back").isEqualTo("mine\n");
    assertThat(project.resolve("b.txt")).doesNotExist();
    String tag = git("tag", "-l", "waymark/*/1").trim();
    assertThat(git("show", tag + ":pre/a.txt")).isEqualTo("mine\n");
  }

  @Test
  void whatAForcedUndoOverwroteIsListedShownAndPutBackHeadless() throws Exception {
    Path writes = temp.resolve("writes.json");
    Files.writeString(writes, ("{'responses':[{'toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':"
        + "'agent\\n'}}]},{'text':'Wrote.'}]}").replace('\'', '"'));
    Run wrote = waymark("exec", "--script", writes.toString(), "--approval", "yolo", "write a");
    assertThat(wrote.exit()).as(wrote.err()).isZero();
    Files.writeString(project.resolve("a.txt"), "mine\n");
    assertThat(waymark("checkpoints", "undo").exit()).as("my edit clashes").isEqualTo(1);
    Run forced = waymark("checkpoints", "undo", "--force");
    assertThat(forced.exit()).as(forced.err()).isZero();

    Run listed = waymark("checkpoints", "rescued");
    assertThat(listed.exit()).as(listed.err()).isZero();
    assertThat(listed.out()).contains("files overwritten by a forced restore of #0: a.txt");
    String name = listed.out().lines().findFirst().orElseThrow().split("  ")[0];
    assertThat(waymark("checkpoints", "rescued", "--json").json().get(0).get("files").toString()).isEqualTo("[\"a.txt\"]");

    Run shown = waymark("checkpoints", "rescued", name);
    assertThat(shown.exit()).as(shown.err()).isZero();
    assertThat(shown.out()).contains("-mine");
    Run restored = waymark("checkpoints", "rescued", name, "restore");
    assertThat(restored.exit()).as(restored.err()).isZero();
    assertThat(file("a.txt")).isEqualTo("mine\n");
    assertThat(waymark("checkpoints", "rescued", "nosuch").err()).contains("No rescued version nosuch in this tab; there are " + name);
  }

  @Test
  void aProjectWithNonAsciiNamesWorksWithoutALocale() throws Exception {
    Path accented = Files.createDirectories(temp.resolve("projé ü"));
    Files.writeString(accented.resolve("naïve.txt"), "mine\n");
    Path shell = temp.resolve("shell.json");
    Files.writeString(shell, ("{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':"
        + "'echo agent > naïve.txt; echo new > ü.txt'}}]},{'text':'done'}]}").replace('\'', '"'));
    ProcessBuilder pb = Waymark.process(temp, home, accented,
        Waymark.command(List.of(), List.of("exec", "--script", shell.toString(), "--approval", "yolo", "go")));
    pb.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
    pb.redirectOutput(temp.resolve("locale-out.txt").toFile()).redirectError(temp.resolve("locale-err.txt").toFile());
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String err = Files.readString(temp.resolve("locale-err.txt"), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(err).isZero();
    assertThat(err).contains("naïve.txt").contains("ü.txt");
    ProcessBuilder undo = Waymark.process(temp, home, accented, Waymark.command(List.of(), List.of("checkpoints", "undo")));
    undo.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
    Process u = undo.redirectErrorStream(true).redirectOutput(temp.resolve("locale-undo.txt").toFile()).start();
    assertThat(u.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(u.exitValue()).as(Files.readString(temp.resolve("locale-undo.txt"), StandardCharsets.UTF_8)).isZero();
    assertThat(Files.readString(accented.resolve("naïve.txt"))).isEqualTo("mine\n");
    assertThat(accented.resolve("ü.txt")).doesNotExist();
  }

  @Test
  void shellCommandsOfTwoWaymarksOnOneProjectDoNotOverlapSoEachCheckpointHoldsOnlyItsOwnFiles() throws Exception {
    // commands captured by comparison take turns; sandboxed ones run at once, each in its own layer (LayeredShellTest)
    Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(temp.resolve("config/waymark/settings.json"), "{\"sandbox\": {\"mode\": \"off\"}}");
    Path slow = temp.resolve("slow.json");
    Files.writeString(slow, ("{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':"
        + "'for i in $(seq 1 16); do echo a$i > a$i.txt; sleep 0.6; done'}}]},{'text':'done'}]}").replace('\'', '"'));
    Path quick = temp.resolve("quick.json");
    Files.writeString(quick, ("{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':"
        + "'for i in 1 2 3 4; do echo b$i > b$i.txt; sleep 0.1; done'}}]},{'text':'done'}]}").replace('\'', '"'));
    var first = CompletableFuture.supplyAsync(() -> {
      try {
        return waymarkIn("slow", "exec", "--script", slow.toString(), "--approval", "yolo", "slow");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Path started = project.resolve("a1.txt");
    Eventually.until("the first command started", () -> Files.exists(started));
    Run second = waymarkIn("quick", "exec", "--script", quick.toString(), "--approval", "yolo", "quick");
    Run firstRun = first.get(60, TimeUnit.SECONDS);

    assertThat(firstRun.exit()).as(firstRun.err()).isZero();
    assertThat(second.exit()).as(second.err()).isZero();
    // 10 s against the second's start (a JVM, a model call) after the first file: the second waits, whatever the
    // load (4 s was not enough with the machine's load average at 25)
    assertThat(firstRun.err()).contains("16 files changed");
    assertThat(second.err()).contains("4 files changed").contains("waited");
  }

  @Test
  void nonAsciiArgumentsSurviveTheRelaunchWithoutALocale() throws Exception {
    // the relaunch once rebuilt its command line from what the JVM had decoded as ASCII: "-C projé" became "proj??"
    Path accented = Files.createDirectories(temp.resolve("argé ü"));
    Path shell = temp.resolve("args.json");
    Files.writeString(shell, "{'responses':[{'text':'done'}]}".replace('\'', '"'));
    ProcessBuilder pb = Waymark.process(temp, home, temp, Waymark.command(List.of(),
        List.of("exec", "-C", accented.toString(), "--script", shell.toString(), "résumé ü")));
    pb.environment().keySet().removeIf(k -> k.equals("LANG") || k.startsWith("LC_"));
    pb.redirectErrorStream(true).redirectOutput(temp.resolve("args-out.txt").toFile());
    Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(temp.resolve("args-out.txt"), StandardCharsets.UTF_8)).isZero();

    ProcessBuilder list = Waymark.process(temp, home, accented, Waymark.command(List.of(),
        List.of("checkpoints", "list", "--json")));
    Process l = list.redirectOutput(temp.resolve("args-list.txt").toFile()).start();
    assertThat(l.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(temp.resolve("args-list.txt"), StandardCharsets.UTF_8)).contains("\"résumé ü\"");
  }

  @Test
  void checkpointsOfASessionMadeByExecCanBeListedUndoneRedoneDiffedAndSaved() throws Exception {
    exec("one");
    JsonNode sessions = waymark("sessions", "--json").json();
    String session = sessions.get(0).get("id").asText();
    exec("--session", session, "two");
    assertThat(file("a.txt")).isEqualTo("two\n");

    JsonNode list = waymark("checkpoints", "list", "--json").json();
    assertThat(list.get("session").asText()).isEqualTo(session);
    assertThat(list.get("live").asInt()).isEqualTo(2);
    assertThat(list.get("checkpoints")).hasSize(3);
    assertThat(list.get("checkpoints").get(2).get("prompt").asText()).isEqualTo("two");
    assertThat(list.get("checkpoints").get(2).get("added").asInt()).isEqualTo(1);
    String tab = list.get("tab").asText();

    Run undo = waymark("checkpoints", "undo", "--json");
    assertThat(undo.json().get("target").asInt()).isEqualTo(1);
    assertThat(file("a.txt")).isEqualTo("one\n");
    assertThat(waymark("checkpoints", "list", "--json").json().get("live").asInt()).as("saved to the session").isEqualTo(1);

    Run diff = waymark("checkpoints", "diff", "2");
    assertThat(diff.out()).contains("-two", "+one");
    assertThat(waymark("checkpoints", "redo").out()).contains("Restored #2");
    assertThat(file("a.txt")).isEqualTo("two\n");
    assertThat(waymark("checkpoints", "goto", "0", "--tab", tab).exit()).isZero();
    assertThat(project.resolve("a.txt")).doesNotExist();
    assertThat(waymark("checkpoints", "goto", "2").exit()).isZero();

    Run save = waymark("checkpoints", "save", "release", "--session", session);
    assertThat(save.out()).contains("waymark/" + tab + "/saved/release");
    assertThat(git("show", "waymark/" + tab + "/saved/release:post/a.txt")).isEqualTo("two\n");

    Run branch = exec("--session", session, "--tab", tab, "--from", "1", "other");
    assertThat(branch.err()).contains("checkpoint #3");
    assertThat(file("a.txt")).as("the branch went back to #1 first").isEqualTo("one\n");
    assertThat(waymark("checkpoints", "list", "--json").json().get("checkpoints").get(3).get("parent").asInt()).isEqualTo(1);
    Run badBranch = waymark("exec", "--script", script.toString(), "--session", session, "--from", "99", "other");
    assertThat(badBranch.exit()).isEqualTo(1);
    assertThat(badBranch.err()).contains("no checkpoint #99");
    Run more = exec("--session", session, "--tab", tab, "two");
    assertThat(more.err()).contains("checkpoint #4");
    assertThat(waymark("checkpoints", "list", "--json").json().get("checkpoints")).hasSize(5);
  }

  @Test
  void revertOfOneCheckpointKeepsTheLaterOnesAndSingleFilesComeBackAsCheckpointsGitCanRead() throws Exception {
    StringBuilder steps = new StringBuilder("{'responses':[");
    String[][] turns = {{"one", "a.txt", "1\\n2\\n3\\n4\\n5\\n6\\n"}, {"two", "a.txt", "1\\nTWO\\n3\\n4\\n5\\n6\\n"},
        {"three", "three.txt", "three\\n"}, {"four", "a.txt", "1\\nTWO\\n3\\n4\\n5\\nSIX\\n"}, {"five", "five.txt", "five\\n"}};
    for (String[] t : turns) {
      steps.append("{'whenLastUser':'").append(t[0]).append("','toolCalls':[{'name':'write_file','arguments':{'path':'")
          .append(t[1]).append("','content':'").append(t[2]).append("'}}]},{'whenLastUser':'").append(t[0])
          .append("','text':'ok'},");
    }
    steps.setLength(steps.length() - 1);
    Files.writeString(script, steps.append("]}").toString().replace('\'', '"'));
    exec("one");
    String session = waymark("sessions", "--json").json().get(0).get("id").asText();
    for (String prompt : List.of("two", "three", "four")) {
      exec("--session", session, prompt);
    }

    Run revert = waymark("checkpoints", "revert", "2");
    assertThat(revert.exit()).as(revert.err()).isZero();
    assertThat(revert.out()).contains("Reverted #2 as #5", "merged with later edits (a.txt)");
    assertThat(file("a.txt")).as("#2's line taken back, #4's kept").isEqualTo("1\n2\n3\n4\n5\nSIX\n");
    assertThat(file("three.txt")).isEqualTo("three\n");

    assertThat(waymark("checkpoints", "undo").exit()).isZero();
    assertThat(file("a.txt")).as("undo takes the revert back").isEqualTo("1\nTWO\n3\n4\n5\nSIX\n");
    assertThat(waymark("checkpoints", "redo").exit()).isZero();
    assertThat(file("a.txt")).isEqualTo("1\n2\n3\n4\n5\nSIX\n");

    Files.writeString(project.resolve("three.txt"), "mine\n");
    Run clash = waymark("checkpoints", "revert", "3");
    assertThat(clash.exit()).isEqualTo(1);
    assertThat(clash.err()).contains("Nothing reverted", "three.txt");
    assertThat(file("three.txt")).as("a clash writes nothing").isEqualTo("mine\n");
    assertThat(waymark("checkpoints", "list", "--json").json().get("live").asInt()).isEqualTo(5);

    Run restore = waymark("checkpoints", "restore", "1", "--", "a.txt");
    assertThat(restore.exit()).as(restore.err()).isZero();
    assertThat(restore.out()).contains("Restored a.txt from #1 as #6");
    assertThat(file("a.txt")).isEqualTo("1\n2\n3\n4\n5\n6\n");
    assertThat(file("three.txt")).isEqualTo("mine\n");
    JsonNode list = waymark("checkpoints", "list", "--json").json();
    String tab = list.get("tab").asText();
    assertThat(git("show", "waymark/" + tab + "/6:post/a.txt")).isEqualTo("1\n2\n3\n4\n5\n6\n");
    assertThat(git("show", "waymark/" + tab + "/6:pre/a.txt")).isEqualTo("1\n2\n3\n4\n5\nSIX\n");

    Files.writeString(project.resolve("three.txt"), "three\n");
    exec("--session", session, "--tab", tab, "--from", "3", "five");
    JsonNode branched = waymark("checkpoints", "list", "--json").json();
    assertThat(branched.get("live").asInt()).isEqualTo(7);
    List<String> rows = new ArrayList<>();
    branched.get("checkpoints").forEach(c -> rows.add(c.get("number").asInt() + ":" + c.get("parent").asInt() + ":"
        + c.get("depth").asInt() + ":" + c.get("state").asText() + ":" + c.get("prompt").asText()));
    assertThat(rows).containsExactly("0:-1:0:on-path:", "1:0:0:on-path:one", "2:1:0:on-path:two",
        "3:2:0:on-path:three", "4:3:1:abandoned:four", "5:4:1:abandoned:revert #2", "6:5:1:abandoned:restore a.txt from #1",
        "7:3:0:live:five");
    Run text = waymark("checkpoints", "list");
    assertThat(text.out()).contains("└ #4", "branch from #3", "abandoned").doesNotContain("(undone)");

    assertThat(waymark("checkpoints", "save", "keep").exit()).isZero();
    assertThat(waymark("checkpoints", "goto", "6").exit()).isZero();
    Run moved = waymark("checkpoints", "save", "keep", "--force");
    assertThat(moved.out()).contains("Saved #6 as \"keep\" (moved from #7): refs/tags/waymark/" + tab + "/saved/keep");
    assertThat(git("show", "waymark/" + tab + "/saved/keep:post/a.txt")).isEqualTo("1\n2\n3\n4\n5\n6\n");
    assertThat(waymark("checkpoints", "save", "--delete", "keep").out()).contains("Deleted the save \"keep\"");
    assertThat(git("tag", "-l", "waymark/" + tab + "/saved/*")).isBlank();
  }

  @Test
  void twoWaymarkProcessesOnOneProjectAtOnceShareTheStoreSafely() throws Exception {
    StringBuilder script = new StringBuilder("{'responses':[");
    List<String> names = List.of("north", "south", "east", "west");
    for (String name : names) {
      script.append("{'whenLastUser':'").append(name).append("','delayMs':300,'toolCalls':[{'name':'write_file','arguments':")
          .append("{'path':'").append(name).append(".txt','content':'").append(name).append("\\n'}}]},")
          .append("{'whenLastUser':'").append(name).append("','text':'").append(name).append(" done'},");
    }
    script.setLength(script.length() - 1);
    Files.writeString(this.script, script.append("]}").toString().replace('\'', '"'));
    List<Thread> threads = new ArrayList<>();
    List<Run> runs = Collections.synchronizedList(new ArrayList<>());
    for (String name : names) {
      Thread t = new Thread(() -> {
        try {
          runs.add(waymarkIn(name, "exec", "--script", this.script.toString(), "--approval", "yolo", name));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join(120_000);
    }
    assertThat(runs).hasSize(4).allSatisfy(r -> assertThat(r.exit()).as(r.err()).isZero());
    for (String name : names) {
      assertThat(file(name + ".txt")).isEqualTo(name + "\n");
    }
    assertThat(waymark("sessions", "--json").json()).hasSize(4);
    assertThat(git("tag", "-l", "waymark/*").lines().count()).isEqualTo(4);
    git("fsck", "--strict");
  }

  @Test
  void undoRedoAndGotoTakeForceAndARestoreThatCannotBeDoneExitsOne() throws Exception {
    exec("one");
    String session = waymark("sessions", "--json").json().get(0).get("id").asText();
    exec("--session", session, "two");
    Files.writeString(project.resolve("a.txt"), "mine\n");

    assertThat(waymark("checkpoints", "undo").exit()).as("a clash refuses").isEqualTo(1);
    Run undo = waymark("checkpoints", "--force", "undo");
    assertThat(undo.exit()).as(undo.err()).isZero();
    assertThat(undo.out()).contains("overwritten by force", "rescued/");
    assertThat(file("a.txt")).isEqualTo("one\n");
    Files.writeString(project.resolve("a.txt"), "again\n");
    assertThat(waymark("checkpoints", "redo", "--force").exit()).isZero();
    assertThat(file("a.txt")).isEqualTo("two\n");

    assertThat(waymark("checkpoints", "save", "x.lock").err()).contains("Not a valid save name");
    Run save = waymark("checkpoints", "save", "rel");
    assertThat(save.out()).contains("refs/tags/waymark/");
    assertThat(waymark("checkpoints", "undo").exit()).isZero();
    assertThat(waymark("checkpoints", "goto", "rel").exit()).isZero();
    assertThat(file("a.txt")).isEqualTo("two\n");
    Waymark.gitOk(home, "fsck", "--strict");

    try (Stream<Path> shadows = Files.find(home.resolve("projects"), 2, (p, a) -> p.getFileName().toString().equals("shadow.git"))) {
      for (Path shadow : shadows.toList()) {
        FileUtils.delete(shadow.toFile(), FileUtils.RECURSIVE);
      }
    }
    Run lost = waymark("checkpoints", "undo");
    assertThat(lost.exit()).as("nothing could be restored").isEqualTo(1);
    assertThat(lost.err()).contains("#2", "nothing was restored").doesNotContain("Restored #");
    assertThat(file("a.txt")).isEqualTo("two\n");
  }

  @Test
  void everythingWaymarkWritesIsPrivateToTheUser() throws Exception {
    exec("one");
    waymark("checkpoints", "save", "kept");
    try (Stream<Path> all = Files.walk(home, 3)) {
      for (Path p : all.toList()) {
        String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
        if (Files.isDirectory(p)) {
          assertThat(mode).as("%s", p).isEqualTo("rwx------");
        } else if (p.toString().endsWith(".json") || p.toString().endsWith(".log")) {
          assertThat(mode).as("%s", p).isEqualTo("rw-------");
        }
      }
    }
  }

  @Test
  void badArgumentsAndUnknownSessionsOrTabsAreOneClearLine() throws Exception {
    Run none = waymark("checkpoints", "list");
    assertThat(none.exit()).isEqualTo(1);
    assertThat(none.err()).contains("no saved session yet").doesNotContain("Exception");

    exec("one");
    assertThat(waymark("checkpoints", "goto").exit()).isEqualTo(2);
    assertThat(waymark("checkpoints", "undo", "x").err()).contains("Not a checkpoint number");
    Run noTab = waymark("checkpoints", "list", "--tab", "tnope");
    assertThat(noTab.exit()).isEqualTo(1);
    assertThat(noTab.err()).contains("has no tab tnope");
    assertThat(waymark("checkpoints", "list", "--session", "nope").err()).contains("No session \"nope\"");
    assertThat(waymark("checkpoints", "goto", "7").err()).contains("no checkpoint #7");
  }

  @Test
  void deletingASessionLeavesNoTagOfItsTabs() throws Exception {
    exec("one");
    String session = waymark("sessions", "--json").json().get(0).get("id").asText();
    exec("--session", session, "two");
    assertThat(git("tag", "-l", "waymark/*")).isNotBlank();

    Run deleted = waymark("sessions", "delete", session);
    assertThat(deleted.exit()).as(deleted.err()).isZero();
    assertThat(git("tag", "-l", "waymark/*")).isBlank();
    assertThat(waymark("sessions").out()).contains("No saved sessions");
    assertThat(file("a.txt")).as("deleting a session never touches the project").isEqualTo("two\n");
  }

  @Test
  void aCorruptSessionFileIsReportedAndLeftAsItIs() throws Exception {
    exec("one");
    Path sessions;
    try (Stream<Path> found = Files.find(home.resolve("projects"), 2, (p, a) -> p.getFileName().toString().equals("sessions"))) {
      sessions = found.findFirst().orElseThrow();
    }
    Path broken = sessions.resolve("20200101-000000-000000.json");
    Files.writeString(broken, "{\"schemaVersion\": 1, \"tabs\": [");
    Path future = sessions.resolve("20200101-000000-ffffff.json");
    Files.writeString(future, "{\"schemaVersion\": 7, \"id\": \"x\", \"tabs\": []}");
    // an unreadable file counts as saved when it was modified: make the damaged one the newest
    Files.setLastModifiedTime(broken, FileTime.from(Instant.now().plusSeconds(60)));
    Files.setLastModifiedTime(future, FileTime.from(Instant.now().minusSeconds(3600)));

    Run list = waymark("sessions");
    assertThat(list.exit()).isZero();
    assertThat(list.out()).contains("20200101-000000-000000", "cannot be loaded", "newer Waymark");
    Run load = waymark("checkpoints", "list", "--session", "20200101-000000-000000");
    assertThat(load.exit()).isEqualTo(1);
    assertThat(load.err()).contains("not a valid session file", "left as it is").doesNotContain("Exception:");
    assertThat(Files.readString(broken)).isEqualTo("{\"schemaVersion\": 1, \"tabs\": [");
    Run newest = waymark("checkpoints", "list");
    assertThat(newest.exit()).as("the damaged newest file is not skipped for an older session").isEqualTo(1);
    assertThat(newest.err()).contains(broken.toString(), "--session");
    String good;
    try (Stream<Path> found = Files.list(sessions)) {
      good = found.map(p -> p.getFileName().toString().replace(".json", "")).filter(n -> !n.startsWith("20200101")).findFirst().orElseThrow();
    }
    assertThat(waymark("checkpoints", "list", "--session", good).exit()).as("the good session still works when named").isZero();
  }
}
