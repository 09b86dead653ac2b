package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills the full-screen interface with SIGKILL at random moments of a turn: while the agent
 * writes files, while the checkpoint is committed and while the session is autosaved. Each round
 * starts it again with {@code --continue}, which must bring the session back; after each kill
 * the checks of {@link CrashIT} hold, and every turn the screen showed as finished keeps its tag.
 * {@code -Dui.crash.kills=N} sets the number of kills (CI: 20).
 */
class UiCrashIT {
  private static final Pattern READY = Pattern.compile("ready · #(\\d+)");

  @TempDir Path temp;

  @BeforeAll
  static void needsTmux() {
    assertThat(Tmux.available()).as("tmux is needed for these tests: apt-get install tmux (.ci/run installs it)").isTrue();
  }

  @Test
  void killedAtAnyMomentTheInterfaceLosesNothingAndContinues() throws Exception {
    int kills = Integer.getInteger("ui.crash.kills", 20);
    long seed = Long.getLong("crash.seed", System.nanoTime());
    Random random = new Random(seed);
    Path home = temp.resolve("home");
    Path project = temp.resolve("project");
    Map<String, Set<String>> versions = CrashIT.generateProject(project);
    Set<Integer> reported = new HashSet<>();
    int finishedBeforeKill = 0;
    int unsaved = 0;
    for (int round = 0; round < kills; round++) {
      Path script = temp.resolve("script-" + round + ".json");
      Files.writeString(script, CrashIT.script(round, random, versions));
      List<String> args = new ArrayList<>();
      if (sessionSaved(home)) {
        args.add("--continue");
      } else if (round > 0) {
        // killed before the first save of its session, which comes before the first turn can write
        assertThat(tags(home)).as("round %d, seed %d: no session was saved, so no checkpoint may have been recorded", round, seed)
            .isEmpty();
        unsaved++;
      }
      args.addAll(List.of("--script", script.toString(), "--approval", "yolo", project.toString()));
      try (Tmux tmux = new Tmux()) {
        tmux.start(100, 30, project, Map.of("WAYMARK_HOME", home.toString(), "HOME", temp.resolve("user").toString(),
            "XDG_CONFIG_HOME", temp.resolve("config").toString()),
            Waymark.command(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"), args));
        String start = tmux.waitFor("ready · #\\d+", Duration.ofSeconds(60));
        assertThat(start).as("round %d, seed %d: the session comes back", round, seed).doesNotContain("Exception");
        tmux.type("round " + round);
        tmux.keys("Enter");
        // the first kill lands as the first prompt is sent, before or while its session is first saved;
        // a turn takes about half a second: the other kills land in it, in the autosave after it, or later
        // No signal, on purpose: the kill lands at a random moment of the turn (seeded)
        Thread.sleep(round == 0 ? 0 : random.nextInt(900));
        String screen = tmux.screen();
        long pid = Long.parseLong(tmux.run("display-message", "-p", "-t", "ui", "#{pane_pid}").strip());
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        tmux.waitForExit(Duration.ofSeconds(20));
        Matcher ready = READY.matcher(screen);
        if (screen.contains("Round " + round + " done.") && ready.find()) {
          reported.add(Integer.parseInt(ready.group(1)));
          finishedBeforeKill++;
        }
      }
      CrashIT.check(round, "interface", seed, home, project, versions, tagsOf(home, reported));
    }
    System.out.printf("interface crash harness: %d kills survived, %d of them after the turn had finished, %d before "
        + "anything was saved, seed %d%n", kills, finishedBeforeKill, unsaved, seed);
  }

  private static boolean sessionSaved(Path home) throws Exception {
    Path shadow = Waymark.shadow(home);
    if (shadow == null || !Files.isDirectory(shadow.getParent().resolve("sessions"))) {
      return false;
    }
    try (var files = Files.list(shadow.getParent().resolve("sessions"))) {
      return files.anyMatch(f -> f.getFileName().toString().matches("[^.].*\\.json"));
    }
  }

  private static List<String> tags(Path home) throws Exception {
    Path shadow = Waymark.shadow(home);
    return shadow == null ? List.of()
        : Waymark.git(shadow, "for-each-ref", "--format=%(refname)", "refs/tags/waymark/").out().lines().toList();
  }

  /** The tags of the checkpoints numbered {@code numbers}; a missing one is named so that the check fails. */
  private static Set<String> tagsOf(Path home, Set<Integer> numbers) throws Exception {
    Set<String> tags = new HashSet<>();
    if (numbers.isEmpty()) {
      return tags;
    }
    List<String> refs = Waymark.gitOk(home, "for-each-ref", "--format=%(refname)", "refs/tags/waymark/").lines().toList();
    for (int n : numbers) {
      tags.add(refs.stream().filter(r -> r.matches("refs/tags/waymark/[^/]+/" + n)).findFirst()
          .orElse("refs/tags/waymark/(no tab)/" + n));
    }
    return tags;
  }

}
