package dev.waymark.core.bisect;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.layer.LayerSupport;
import dev.waymark.core.layer.ScratchLayer;
import dev.waymark.core.sandbox.ShellSandbox;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Tests one checkpoint: makes its layer (the project now, with the files that differ there written
 * in the upper and the ones it lacks hidden), runs the command on it in the sandbox, reads the
 * exit status, stops whatever the command left running, and deletes the layer.
 */
final class CandidateRun {
  /** The exit status of a run that timed out. */
  static final int TIMED_OUT = -1;
  /** The exit status of a run that could not start or whose layer could not be made. */
  static final int NOT_RUN = -2;
  private static final int TAIL_BYTES = 4096;
  private static final int TAIL_LINES = 20;

  private final Bisection.Setup setup;
  private final LayerSupport layers;
  private final CandidateFiles files;
  private final String command;

  CandidateRun(Bisection.Setup setup, LayerSupport layers, CandidateFiles files, String command) {
    this.setup = setup;
    this.layers = layers;
    this.files = files;
    this.command = command;
  }

  BisectStep test(int checkpoint) {
    long started = System.nanoTime();
    ScratchLayer layer;
    try {
      layer = prepare(checkpoint);
    } catch (IOException | RuntimeException e) {
      return new BisectStep(checkpoint, NOT_RUN, Verdict.ABORT, 0, 0, 0, 0,
          "its layer could not be made: " + e.getMessage());
    }
    long prepared = System.nanoTime();
    try (layer) {
      return run(checkpoint, layer, millis(prepared - started));
    } catch (IOException e) {
      return new BisectStep(checkpoint, NOT_RUN, Verdict.ABORT, layer.written(), layer.deleted(), millis(prepared - started),
          0, e.getMessage());
    }
  }

  /** The layer of {@code checkpoint}, ready to run in: O(paths that differ), the project is only stat'ed at those. */
  ScratchLayer prepare(int checkpoint) throws IOException {
    ScratchLayer layer = ScratchLayer.create(setup.scratchRoot(), setup.project());
    try {
      for (Map.Entry<String, FileVersion> entry : files.at(checkpoint).entrySet()) {
        String path = entry.getKey();
        FileVersion version = entry.getValue();
        if (!version.exists()) {
          layer.delete(path);
        } else if (version.kind() == FileKind.SYMLINK) {
          layer.link(path, new String(setup.blobs().read(version.blob()), StandardCharsets.UTF_8));
        } else {
          int mode = version.hasMode() ? version.mode() : FileModes.fallback(version.kind(), null);
          layer.write(path, setup.blobs().read(version.blob()), mode);
        }
      }
      layer.seal();
      return layer;
    } catch (IOException | RuntimeException e) {
      layer.close();
      throw e;
    }
  }

  private BisectStep run(int checkpoint, ScratchLayer layer, long prepareMillis) throws IOException {
    // tied to this Waymark: a bisect killed mid-run leaves no command running
    ShellSandbox.Wrapped wrapped = setup.sandbox().wrapTied(List.of("/bin/sh", "-c", command), setup.project(), List.of());
    Path output = layer.directory().resolve("output");
    ProcessBuilder builder = new ProcessBuilder(layers.enter(layer, wrapped.argv())).directory(setup.project().toFile())
        .redirectErrorStream(true).redirectOutput(output.toFile()).redirectInput(new File("/dev/null"));
    builder.environment().clear();
    builder.environment().putAll(setup.environment());
    CommandMark mark = CommandMark.random();
    builder.environment().put(CommandMark.VARIABLE, mark.value());
    long started = System.nanoTime();
    Process process = builder.start();
    int status;
    try {
      if (process.waitFor(setup.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        status = process.exitValue();
      } else {
        status = TIMED_OUT;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = TIMED_OUT;
    } finally {
      // what the command left running goes with its layer
      CommandMark.stop(List.of(process.toHandle()), 0);
      mark.stopAll(2_000);
    }
    long ran = millis(System.nanoTime() - started);
    String tail = tail(output);
    if (LayerSupport.notMounted(status, tail)) {
      return new BisectStep(checkpoint, NOT_RUN, Verdict.ABORT, layer.written(), layer.deleted(), prepareMillis, ran,
          "its copy-on-write layer could not be mounted");
    }
    Verdict verdict = status == TIMED_OUT ? Verdict.ABORT : Verdict.of(status);
    return new BisectStep(checkpoint, status, verdict, layer.written(), layer.deleted(), prepareMillis, ran, tail);
  }

  /** The last lines of the command's output. */
  private static String tail(Path output) throws IOException {
    if (!Files.exists(output)) {
      return "";
    }
    try (RandomAccessFile file = new RandomAccessFile(output.toFile(), "r")) {
      long length = file.length();
      byte[] bytes = new byte[(int) Math.min(TAIL_BYTES, length)];
      file.seek(length - bytes.length);
      file.readFully(bytes);
      List<String> lines = new String(bytes, StandardCharsets.UTF_8).lines().toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
    }
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }
}
