package dev.waymark.core.protocol;

import java.util.List;

/**
 * How the files on disk differ from a checkpoint, one unified diff per file that differs
 * ({@code a/} is the checkpoint, {@code b/} the disk).
 */
public record DiffView(int checkpoint, List<FileDiff> files) {
  public DiffView {
    files = List.copyOf(files);
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
