package dev.waymark.core.checkpoint.bench;

import static dev.waymark.core.checkpoint.bench.BenchTools.deleteTree;
import static dev.waymark.core.checkpoint.bench.BenchTools.git;
import static dev.waymark.core.checkpoint.bench.BenchTools.median;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.WorkTreeSnapshot;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.layer.View;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Isolated tabs (issue 41): opening one costs O(1) whatever the project's size (no copy, no
 * checkout), against {@code git worktree add} of the same committed tree in the same run; and
 * landing one file, against a sandboxed command that changes one file (its layer applied).
 *
 * <p>{@code IsolatedTabBench --sizes=100000 --out=DIR}; needs {@code git}, {@code bwrap} and
 * overlay mounts in user namespaces. Targets: opening ≤ 50 ms at 100,000 files; landing one file
 * ≤ the one-file command.
 */
public final class IsolatedTabBench {
  private static final int TIMES = 9;

  private IsolatedTabBench() {}

  public static void main(String[] args) throws Exception {
    BenchArgs parsed = BenchArgs.parse(args, List.of(100_000));
    List<Integer> sizes = parsed.sizes();
    Path out = parsed.out();
    Files.createDirectories(out);
    StringBuilder table = new StringBuilder(String.format(Locale.ROOT, "%-8s %14s %16s %8s %14s %14s %8s%n",
        "files", "open isolated", "git worktree add", "ratio", "land 1 file", "1-file command", "ratio"));
    for (int size : sizes) {
      table.append(run(size));
    }
    table.append("\nmedians of ").append(TIMES).append(" runs, in ms, after a warm-up; target: open ≤ 50 ms at 100,000 "
        + "files, land 1 file ≤ the 1-file command\n");
    Files.writeString(out.resolve("isolated-tabs.txt"), table.toString());
    System.out.print(table);
  }

  private static String run(int size) throws Exception {
    Path temp = Files.createTempDirectory("isolated-bench");
    try {
      Path project = Files.createDirectories(temp.resolve("project"));
      ProjectGenerator.Project generated = BenchTools.committedTree(project, size);
      ShellSandbox sandbox = ShellSandbox.detect(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")),
          System.getenv("PATH"));
      if (sandbox.bwrap().isEmpty()) {
        return String.format(Locale.ROOT, "%-8d not measured: no sandbox here%n", size);
      }
      try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
        store.newIsolatedTab(sandbox.bwrap()).release(); // the probe of layers, once, as a first tab pays it
        List<Double> open = new ArrayList<>();
        for (int i = 0; i <= TIMES; i++) {
          long t = System.nanoTime();
          CheckpointTree tab = store.newIsolatedTab(sandbox.bwrap());
          double ms = (System.nanoTime() - t) / 1e6;
          tab.release();
          if (i > 0) {
            open.add(ms);
          }
        }
        List<Double> worktree = new ArrayList<>();
        for (int i = 0; i <= 3; i++) {
          Path target = temp.resolve("wt" + i);
          long t = System.nanoTime();
          git(project, "worktree", "add", "-q", "--detach", target.toString());
          double ms = (System.nanoTime() - t) / 1e6;
          if (i > 0) {
            worktree.add(ms);
          }
          git(project, "worktree", "remove", "--force", target.toString());
        }
        String file = generated.files().get(generated.files().size() / 2);
        List<Double> land = new ArrayList<>();
        List<Double> command = new ArrayList<>();
        for (int i = 0; i <= TIMES; i++) {
          CheckpointTree tab = store.newIsolatedTab(sandbox.bwrap());
          Turn turn = tab.begin();
          FileState before = turn.read(file);
          View.read(tab.viewDirectory().orElseThrow()).orElseThrow()
              .write(file, ("landed " + i + "\n").getBytes(), 0644);
          turn.recordFromDisk(file, before);
          turn.finish(CheckpointStatus.DONE);
          long t = System.nanoTime();
          tab.land();
          double landMs = (System.nanoTime() - t) / 1e6;
          tab.release();
          CheckpointTree plain = store.newTab();
          Turn commandTurn = plain.begin();
          t = System.nanoTime();
          Turn.ShellCapture capture = commandTurn.shellCapture(sandbox.bwrap());
          WorkTreeSnapshot layer = commandTurn.snapshotWorkTree(capture.capture(), Long.MAX_VALUE, CommandMark.random());
          ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", "echo edited " + i + " >> " + file),
              project.toRealPath(), false);
          Process p = new ProcessBuilder(layer.enter(wrapped.argv())).redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
          p.waitFor();
          layer.recordChanges(new CommandCapture.Ended(wrapped.placeholders(), List::of));
          double commandMs = (System.nanoTime() - t) / 1e6;
          wrapped.removePlaceholders();
          commandTurn.finish(CheckpointStatus.DONE);
          plain.release();
          if (i > 0) {
            land.add(landMs);
            command.add(commandMs);
          }
        }
        double o = median(open);
        double w = median(worktree);
        double l = median(land);
        double c = median(command);
        return String.format(Locale.ROOT, "%-8d %14.2f %16.1f %7.0fx %14.2f %14.2f %7.2fx%n", size, o, w, w / o, l, c, l / c);
      }
    } finally {
      deleteTree(temp);
    }
  }
}
