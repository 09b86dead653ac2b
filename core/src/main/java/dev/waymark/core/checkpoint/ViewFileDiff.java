package dev.waymark.core.checkpoint;

/**
 * How one path of an isolated tab's view differs from the project: a unified diff with the
 * project's side first (a one-line note for binary files), and its lines added and removed.
 */
public record ViewFileDiff(String path, int added, int removed, boolean binary, String unified) {
  /** The diff of {@code path} from the project's {@code before} to the view's {@code after} (null: absent or not text). */
  static ViewFileDiff of(String path, String before, String after, boolean binary) {
    if (binary) {
      return new ViewFileDiff(path, 0, 0, true, "Binary files a/" + path + " and b/" + path + " differ\n");
    }
    String unified = UnifiedDiff.of(path, before, after);
    int added = 0;
    int removed = 0;
    boolean inHunk = false;
    for (String line : unified.split("\n", -1)) {
      if (line.startsWith("@@")) {
        inHunk = true; // the headers (--- and +++) come before the first hunk
      } else if (inHunk && line.startsWith("+")) {
        added++;
      } else if (inHunk && line.startsWith("-")) {
        removed++;
      }
    }
    return new ViewFileDiff(path, added, removed, false, unified);
  }
}
