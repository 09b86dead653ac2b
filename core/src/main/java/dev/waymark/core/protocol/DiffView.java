package dev.waymark.core.protocol;

import java.util.List;

/**
 * How the files on disk differ from a checkpoint, one unified diff per file that differs
 * ({@code a/} is the checkpoint, {@code b/} the disk); or, with {@code view}, how an isolated tab's
 * view differs from the project at its live {@code checkpoint} ({@code a/} the project, {@code b/}
 * the view: what a land would change). {@code stat} asks for a line per file rather than the hunks.
 */
public record DiffView(int checkpoint, List<FileDiff> files, boolean view, boolean stat) {
  public DiffView {
    files = List.copyOf(files);
  }

  public DiffView(int checkpoint, List<FileDiff> files) {
    this(checkpoint, files, false, false);
  }

  public int added() {
    return files.stream().mapToInt(FileDiff::added).sum();
  }

  public int removed() {
    return files.stream().mapToInt(FileDiff::removed).sum();
  }

  /** One file's difference; {@code binary} diffs carry a one-line note instead of hunks. */
  public record FileDiff(String path, String unified, int added, int removed, boolean binary) {}

  public boolean isEmpty() {
    return files.isEmpty();
  }

  /** Every file's diff, one after the other. */
  public String unified() {
    StringBuilder all = new StringBuilder();
    for (FileDiff file : files) {
      all.append(file.unified());
    }
    return all.toString();
  }
}
