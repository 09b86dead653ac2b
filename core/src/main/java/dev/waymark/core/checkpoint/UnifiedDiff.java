package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.FileKind;
import java.nio.charset.StandardCharsets;

/** Unified diffs in the same form as checkpoint diffs, for previews of changes not yet made. */
public final class UnifiedDiff {
  private UnifiedDiff() {}

  /** The diff from {@code before} to {@code after} of {@code path}; a null side is a file that does not exist. */
  public static String of(String path, String before, String after) {
    byte[] a = before == null ? null : before.getBytes(StandardCharsets.UTF_8);
    byte[] b = after == null ? null : after.getBytes(StandardCharsets.UTF_8);
    // an absent side is ABSENT: a null kind is what a diff against the disk says of a directory or special file
    return CheckpointDiffs.unifiedDiff(path, a, a == null ? FileKind.ABSENT : FileKind.REGULAR, b,
        b == null ? FileKind.ABSENT : FileKind.REGULAR).unified();
  }
}
