package dev.waymark.core.protocol;

import java.util.List;

/**
 * How two checkpoints differ, of one tab or of two: one entry per file that differs, sorted by
 * path; {@code a/} is {@code from}, {@code b/} is {@code to}. Each file's hunks are numbered from
 * 0 in order, as {@code Command.Take} names them.
 *
 * @param from the first checkpoint, by number ({@code #3}, or {@code t1a2b:#4} of another tab), so that
 *     a take names the same checkpoints after live moved
 * @param to the second
 */
public record ComparisonView(CheckpointRef from, CheckpointRef to, List<FileComparison> files) {
  public ComparisonView {
    files = List.copyOf(files);
  }

  /** What happened to a file from one side to the other. */
  public enum Change { ADDED, DELETED, MODIFIED }

  /**
   * One file's difference: {@code header} is the git-style lines before the hunks (the mode lines,
   * {@code ---}/{@code +++}, or the note a binary or too-large file carries instead of hunks).
   */
  public record FileComparison(String path, Change change, int added, int removed, boolean binary, String header,
      List<String> hunks) {
    public FileComparison {
      hunks = List.copyOf(hunks);
    }

    public String unified() {
      return header + String.join("", hunks);
    }
  }

  public boolean isEmpty() {
    return files.isEmpty();
  }

  public int added() {
    return files.stream().mapToInt(FileComparison::added).sum();
  }

  public int removed() {
    return files.stream().mapToInt(FileComparison::removed).sum();
  }

  /** Every file's diff, one after the other. */
  public String unified() {
    StringBuilder all = new StringBuilder();
    for (FileComparison file : files) {
      all.append(file.unified());
    }
    return all.toString();
  }
}
