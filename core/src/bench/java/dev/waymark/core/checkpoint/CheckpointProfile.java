package dev.waymark.core.checkpoint;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.bench.ProjectGenerator;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.RestoreJournal;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Where the time of one checkpoint goes: times each step of {@code changed}-file turns, and the
 * JGit work underneath ({@link ShadowRepository} calls) on their own. Not a JMH benchmark: a
 * diagnostic, run by hand with the bench classpath:
 * {@code java -cp ... dev.waymark.core.checkpoint.CheckpointProfile FILES CHANGED COUNT}: generates
 * a project of FILES files as the benchmark does, picks the same CHANGED files, runs COUNT turns,
 * prints the medians, and deletes everything it made.
 */
public final class CheckpointProfile {
  private final Map<String, List<Long>> times = new LinkedHashMap<>();

  public static void main(String[] args) throws Exception {
    int files = Integer.parseInt(args[0]);
    int changed = Integer.parseInt(args[1]);
    int count = Integer.parseInt(args[2]);
    Path temp = Files.createTempDirectory("waymark-profile-");
    try {
      ProjectGenerator.Project project = ProjectGenerator.generate(temp.resolve("project"), files, 42);
      List<String> paths = ProjectGenerator.pick(project.files(), changed, 7); // as the benchmark picks
      new CheckpointProfile().run(project.root(), temp.resolve("home"), paths, count);
    } finally {
      ProjectGenerator.deleteTree(temp);
    }
  }

  private <T> T time(String what, Supplier<T> work) {
    long t0 = System.nanoTime();
    T result = work.get();
    times.computeIfAbsent(what, k -> new ArrayList<>()).add(System.nanoTime() - t0);
    return result;
  }

  private interface Io<T> {
    T get() throws IOException;
  }

  private static <T> T io(Io<T> work) {
    try {
      return work.get();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void run(Path project, Path home, List<String> paths, int count) throws Exception {
    try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      CheckpointTree tree = store.openTab("profile");
      ShadowRepository repo = store.repo();
      int edit = 0;
      for (int n = 0; n < count; n++) {
        Turn turn = time("turn: begin", tree::begin);
        for (String path : paths) {
          FileState before = time("file: turn.read (before)", () -> turn.read(path));
          byte[] content = (new String(before.contentUnsafe(), StandardCharsets.UTF_8) + "// e " + (++edit) + "\n")
              .getBytes(StandardCharsets.UTF_8);
          time("file: Files.write", () -> {
            try {
              return Files.write(project.resolve(path), content);
            } catch (IOException e) {
              throw new IllegalStateException(e);
            }
          });
          FileState after = time("file: turn.read (after)", () -> turn.read(path));
          time("file: turn.record (2 blobs on the writer)", () -> {
            turn.record(path, before, after);
            return null;
          });
        }
        time("turn: finish (commit + tag + prune)", () -> turn.finish(CheckpointStatus.DONE));
        if (n % 4 == 0) {
          time("undo", tree::undo);
          time("redo", tree::redo);
        }

        // The JGit work underneath, each on its own.
        final int k = n;
        time("jgit: writer round trip (no work)", () -> repo.write(() -> null));
        FileState fresh = FileState.regular("fresh " + n + " " + System.nanoTime() + "\n");
        List<FileVersion> v = time("jgit: insert 1 new blob (writer + loose object)", () -> repo.insert(List.of(fresh)));
        time("jgit: insert 1 existing blob", () -> repo.insert(List.of(fresh)));
        ObjectId blob = v.get(0).blob();
        time("jgit: has(blob)", () -> repo.has(blob));
        String deep = paths.get(0);
        List<ShadowRepository.TreeEntry> entries = List.of(
            new ShadowRepository.TreeEntry("pre/" + deep, v.get(0)),
            new ShadowRepository.TreeEntry("post/" + deep + ".x", v.get(0)));
        time("jgit: commitAndTag (2 deep entries + manifest, new tag)", () -> repo.commitAndTag(entries,
            ("{\"n\":" + k + "}").getBytes(StandardCharsets.UTF_8), List.of(), "m", Instant.now(), "refs/tags/profile/x" + k));
        List<ShadowRepository.TreeEntry> flat = List.of(new ShadowRepository.TreeEntry("f", v.get(0)));
        time("jgit: commitAndTag (1 flat entry + manifest, new tag)", () -> repo.commitAndTag(flat,
            ("{\"m\":" + k + "}").getBytes(StandardCharsets.UTF_8), List.of(), "m", Instant.now(), "refs/tags/profile/y" + k));
        time("jgit: setRef (move one ref)", () -> {
          repo.setRef("refs/tags/profile/moving", blob);
          return null;
        });
        time("restore: project lock (FileChannel lock)", () -> store.parts().lock().run(() -> null));

        // The steps of a 1-file restore (FileRestore.execute/apply), each on its own.
        String target = paths.get(0);
        FileVersion now = tree.checkpoint(tree.live()).changes().get(0).after();
        time("restore: read + hash the file on disk", () -> io(() -> store.workTree().read(target, repo)));
        RestoreJournal.Content journal = new RestoreJournal.Content(1, "profile", 0, 0,
            List.of(RestoreJournal.Entry.of(target, now, now)));
        time("restore: write the journal (temp + rename)", () -> io(() -> {
          RestoreJournal.write(store.journalFile(), journal);
          return null;
        }));
        time("restore: write the file (temp + perms + rename)", () -> io(() -> {
          store.workTree().write(target, now, repo);
          return null;
        }));
        time("restore: delete the journal", () -> io(() -> Files.deleteIfExists(store.journalFile())));
      }
      long loose;
      try (var objects = Files.walk(store.shadowDirectory().resolve("objects"))) {
        loose = objects.filter(p -> p.getParent().getFileName().toString().length() == 2 && Files.isRegularFile(p)).count();
      }
      System.out.printf(Locale.ROOT, "%d checkpoints of %d file(s), path depth %d, in %s; %d loose objects in the shadow repository%n",
          count, paths.size(), paths.get(0).split("/").length - 1, project, loose);
      System.out.println("changed: " + paths);
      System.out.printf(Locale.ROOT, "%-58s %9s %9s %9s%n", "step", "p50 ms", "p90 ms", "mean ms");
      for (var entry : times.entrySet()) {
        long[] ns = entry.getValue().stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(ns);
        System.out.printf(Locale.ROOT, "%-58s %9.3f %9.3f %9.3f%n", entry.getKey(), ns[ns.length / 2] / 1e6,
            ns[(int) (ns.length * 0.9)] / 1e6, Arrays.stream(ns).average().orElse(0) / 1e6);
      }
    }
  }
}
