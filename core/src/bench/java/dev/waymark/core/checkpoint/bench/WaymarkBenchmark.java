package dev.waymark.core.checkpoint.bench;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.BenchAccess;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.FileState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Waymark's checkpoint engine on a generated project: a turn that changes {@code changed} files
 * and finishes (the checkpoint), undoing such a checkpoint, and redoing it.
 *
 * <p>"create" is what {@code write_file} does per file ({@code read} before, {@code recordAhead},
 * which commits the running checkpoint under its tag, then the write) plus {@code finish}; the file writes themselves are inside the measurement, as they are in
 * {@link BaselineBenchmark}. "undo" and "redo" flip one checkpoint that changed {@code changed}
 * files back and forth; the opposite move is done, unmeasured, before each measured one.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class WaymarkBenchmark {
  @Param({"1000", "10000", "100000"})
  public int files;

  @Param({"1", "10"})
  public int changed;

  private Path temp;
  private ShadowStore store;
  private CheckpointTree tree;
  private Edits edits;
  private int top;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    BenchAccess.isolateGit();
    temp = Files.createTempDirectory("waymark-bench-");
    Path project = temp.resolve("project");
    long t0 = System.nanoTime();
    ProjectGenerator.Project generated = ProjectGenerator.generate(project, files, 42);
    System.out.printf(Locale.ROOT, "%n[setup] generated %,d files (%,d KB) in %.1f s%n",
        files, generated.bytes() / 1024, (System.nanoTime() - t0) / 1e9);
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    tree = store.openTab("bench");
    edits = new Edits(project, ProjectGenerator.pick(generated.files(), changed, 7));

    // The checkpoint that undo and redo flip: #1, changing `changed` files.
    Checkpoint first = checkpoint();
    top = first.number();
    if (first.changes().size() != changed) {
      throw new IllegalStateException("checkpoint #" + top + " recorded " + first.changes().size() + " changes");
    }
    byte[] after = edits.current(0);
    check(tree.undo());
    check(tree.redo());
    if (!Arrays.equals(after, edits.current(0))) {
      throw new IllegalStateException("undo + redo did not bring the file back");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    store.close();
    ProjectGenerator.deleteTree(temp);
  }

  private Checkpoint checkpoint() {
    Turn turn = tree.begin();
    for (int i = 0; i < edits.paths().size(); i++) {
      String path = edits.paths().get(i);
      FileState before = turn.read(path);
      byte[] next = edits.next(i);
      turn.recordAhead(path, before, FileState.of(before.kind(), next));
      try {
        Files.write(store.projectDirectory().resolve(path), next);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return turn.finish(CheckpointStatus.DONE);
  }

  private RestoreResult check(RestoreResult result) {
    if (!result.applied() || result.written().size() != changed) {
      throw new IllegalStateException("restore did not write " + changed + " files: " + result);
    }
    return result;
  }

  /** Before each measured undo: stand on the checkpoint to undo. */
  @State(Scope.Thread)
  public static class AtTop {
    @Setup(Level.Invocation)
    public void ready(WaymarkBenchmark b) {
      if (b.tree.live() != b.top) {
        b.check(b.tree.redo());
      }
    }
  }

  /** Before each measured redo: stand just below the checkpoint to redo. */
  @State(Scope.Thread)
  public static class BelowTop {
    @Setup(Level.Invocation)
    public void ready(WaymarkBenchmark b) {
      if (b.tree.live() == b.top) {
        b.check(b.tree.undo());
      }
    }
  }

  @Benchmark
  public Checkpoint create() {
    return checkpoint();
  }

  @Benchmark
  public RestoreResult undo(AtTop ready) {
    return check(tree.undo());
  }

  @Benchmark
  public RestoreResult redo(BelowTop ready) {
    return check(tree.redo());
  }
}
