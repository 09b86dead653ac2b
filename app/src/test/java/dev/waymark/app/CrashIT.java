package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.session.SessionStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectInserter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills Waymark with SIGKILL at random moments while it creates checkpoints, branches, undoes,
 * redoes, goes to and saves them (each of which also saves the session), and checks after every kill that nothing is lost: the next start
 * rolls back any interrupted restore; every project file holds one whole version that Waymark or
 * the project had (never a mix, never truncated or emptied); every session file parses; the
 * shadow repository passes {@code git fsck --strict}; every checkpoint reported created still
 * has its tag; the project's original content of every file that no longer holds it can still be
 * reached from a tag (a kill between a write and its record would lose it). {@code -Dcrash.kills=N}
 * sets the number of kills (CI: 200).
 */
class CrashIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern CREATED = Pattern.compile("checkpoint #(\\d+): \\d+ files? changed, tag (\\S+)");
  private static final Pattern SESSION = Pattern.compile("waymark: session (\\S+), tab (\\S+)");
  private static final int FILES = 12;

  @TempDir Path temp;

  @Test
  void killedAtAnyMomentWaymarkLosesNothing() throws Exception {
    int kills = Integer.getInteger("crash.kills", 200);
    long seed = Long.getLong("crash.seed", System.nanoTime());
    Random random = new Random(seed);
    Path home = temp.resolve("home");
    Path project = Files.createDirectories(temp.resolve("project"));
    Map<String, Set<String>> versions = generateProject(project);
    Set<String> reportedTags = new HashSet<>();
    String session = null;
    String tab = null;
    int killed = 0;
    int done = 0;
    int turnsDone = 0;
    Map<String, Integer> lifetimes = new HashMap<>(); // milliseconds, by operation
    for (int round = 0; killed < kills; round++) {
      String op;
      List<String> args = new ArrayList<>();
      int pick = random.nextInt(100);
      if (session == null || pick < 48) {
        boolean branch = session != null && pick >= 40;
        op = branch ? "branch" : "exec";
        Path script = temp.resolve("script-" + round + ".json");
        Files.writeString(script, script(round, random, versions));
        args.addAll(List.of("exec", "--script", script.toString(), "--approval", "yolo"));
        if (session != null) {
          args.addAll(List.of("--session", session, "--tab", tab));
        }
        if (branch) {
          args.addAll(List.of("--from", String.valueOf(random.nextInt(Math.max(1, round / 2 + 1)))));
        }
        args.add("round " + round);
      } else if (pick < 65) {
        op = "undo";
        args.addAll(List.of("checkpoints", "undo", "--force"));
      } else if (pick < 80) {
        op = "redo";
        args.addAll(List.of("checkpoints", "redo"));
      } else if (pick < 93) {
        op = "goto";
        args.addAll(List.of("checkpoints", "goto", String.valueOf(random.nextInt(Math.max(1, round / 2 + 1))), "--force"));
      } else {
        op = "save";
        args.addAll(List.of("checkpoints", "save", "s" + round));
      }
      long started = System.nanoTime();
      Process p = start(home, project, args, round);
      CompletableFuture<Long> exited = p.onExit().thenApply(ended -> System.nanoTime());
      boolean kill = random.nextInt(100) < 85;
      if (kill) {
        // No signal, on purpose: the kill lands at a random moment of the process's life (seeded),
        // drawn within the last whole run of the same operation, so that it is not drawn after the end
        Thread.sleep(100 + random.nextInt(lifetimes.getOrDefault(op, 1500)));
      }
      if (kill && p.isAlive()) {
        p.destroyForcibly(); // SIGKILL
        p.waitFor(10, TimeUnit.SECONDS);
        killed++;
      } else {
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("round %d (%s) ended", round, op).isTrue();
        lifetimes.put(op, (int) Math.max(100, TimeUnit.NANOSECONDS.toMillis(exited.join() - started) * 5 / 4));
        done++;
        turnsDone += op.equals("exec") || op.equals("branch") ? 1 : 0;
      }
      String err = Files.readString(temp.resolve("err-" + round + ".txt"));
      Matcher created = CREATED.matcher(err);
      while (created.find()) {
        reportedTags.add(created.group(2));
      }
      Matcher s = SESSION.matcher(err);
      if (s.find() && session == null) {
        session = s.group(1);
        tab = s.group(2);
      }
      check(round, op, seed, home, project, versions, reportedTags);
    }
    System.out.printf("crash harness: %d kills survived, %d operations completed, %d checkpoints reported, seed %d%n",
        killed, done, reportedTags.size(), seed);
    if (turnsDone > 0) { // each writes a file, so reports a checkpoint: the report's wording is still read
      assertThat(reportedTags).as("the checkpoints of %d completed turns, seed %d", turnsDone, seed).isNotEmpty();
    }
  }

  /**
   * Writes the project's files and returns every whole content each may hold ({@code ""}:
   * absent), which {@link #script} adds to.
   */
  static Map<String, Set<String>> generateProject(Path project) throws IOException {
    Map<String, Set<String>> versions = new HashMap<>();
    Files.createDirectories(project.resolve("src"));
    for (int i = 0; i < FILES; i++) {
      String path = "src/f" + i + ".txt";
      Files.writeString(project.resolve(path), path + " original\n");
      versions.computeIfAbsent(path, k -> new LinkedHashSet<>()).add(path + " original\n");
    }
    for (int i = 0; i < 4; i++) {
      versions.computeIfAbsent("new/n" + i + ".txt", k -> new LinkedHashSet<>()).add("");
    }
    return versions;
  }

  /** A turn that writes or edits a few files with pauses, so that a kill can land in the middle of it. */
  static String script(int round, Random random, Map<String, Set<String>> versions) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode responses = root.putArray("responses");
    int writes = 1 + random.nextInt(4);
    for (int w = 0; w < writes; w++) {
      String path = random.nextInt(6) == 0 ? "new/n" + random.nextInt(4) + ".txt" : "src/f" + random.nextInt(FILES) + ".txt";
      String content = path + " round " + round + " write " + w + "\n";
      versions.computeIfAbsent(path, k -> new LinkedHashSet<>()).add(content);
      ObjectNode response = responses.addObject();
      response.put("delayMs", random.nextInt(120));
      ObjectNode call = response.putArray("toolCalls").addObject();
      call.put("name", "write_file");
      call.putObject("arguments").put("path", path).put("content", content);
    }
    responses.addObject().put("text", "Round " + round + " done.").put("chunkDelayMs", 20);
    return root.toString();
  }

  private Process start(Path home, Path project, List<String> args, int round) throws Exception {
    return Waymark.process(temp, home, project, Waymark.command(List.of(), args))
        .redirectOutput(temp.resolve("out-" + round + ".txt").toFile())
        .redirectError(temp.resolve("err-" + round + ".txt").toFile())
        .start();
  }

  /** The checks after one kill; {@link UiCrashIT} makes them too. */
  static void check(int round, String op, long seed, Path home, Path project, Map<String, Set<String>> versions,
      Set<String> reportedTags) throws Exception {
    String context = "after round " + round + " (" + op + "), seed " + seed;
    // the next start finishes or rolls back an interrupted restore
    try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      assertThat(store.shadowDirectory().getParent().resolve("restore-journal.json")).as(context).doesNotExist();
    }
    for (var entry : versions.entrySet()) {
      Path file = project.resolve(entry.getKey());
      String content = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
      assertThat(entry.getValue()).as("%s: %s holds one whole version", context, entry.getKey()).contains(content);
    }
    Path shadow = Waymark.shadow(home);
    if (shadow == null) {
      return;
    }
    Path sessions = shadow.getParent().resolve("sessions");
    if (Files.isDirectory(sessions)) {
      try (Stream<Path> files = Files.list(sessions)) {
        for (Path f : files.filter(f -> f.toString().endsWith(".json") && !f.getFileName().toString().startsWith(".")).toList()) {
          JsonNode session = JSON.readTree(f.toFile());
          assertThat(session.path("schemaVersion").asInt()).as("%s: %s parses", context, f)
              .isEqualTo(SessionStore.SCHEMA_VERSION);
        }
      }
    }
    assertThat(Waymark.git(shadow, "fsck", "--strict").exit()).as(context).isEqualTo(0);
    Set<String> refs = new HashSet<>(Waymark.git(shadow, "for-each-ref", "--format=%(refname)", "refs/tags/waymark/").out()
        .lines().toList());
    assertThat(refs).as("%s: every checkpoint reported created keeps its tag", context).containsAll(reportedTags);
    Set<String> reachable = new HashSet<>();
    Waymark.git(shadow, "rev-list", "--objects", "--all").out().lines().forEach(line -> reachable.add(line.split(" ")[0]));
    for (int i = 0; i < FILES; i++) {
      String path = "src/f" + i + ".txt";
      String original = path + " original\n";
      Path file = project.resolve(path);
      if (!Files.exists(file) || !Files.readString(file, StandardCharsets.UTF_8).equals(original)) {
        String blob = new ObjectInserter.Formatter()
            .idFor(Constants.OBJ_BLOB, original.getBytes(StandardCharsets.UTF_8)).name();
        assertThat(reachable).as("%s: the original %s can still be brought back", context, path).contains(blob);
      }
    }
  }

}
