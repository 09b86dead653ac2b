package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.WorkTree;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.diff.EditList;
import org.eclipse.jgit.diff.HistogramDiff;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;

/**
 * Renders diffs of a tab's checkpoints: how the disk differs from one ({@link #againstDisk}), and
 * what one changed ({@link #ofChanges}), as git-style unified diffs (JGit's histogram diff).
 */
final class CheckpointDiffs {
  private final StoreParts parts;

  CheckpointDiffs(StoreParts parts) {
    this.parts = parts;
  }

  /** How the files on disk differ from {@code wanted}, what checkpoint {@code number} holds for each path. */
  CheckpointDiff againstDisk(int number, Map<String, FileVersion> wanted) {
    List<CheckpointDiff.FileDiff> diffs = new ArrayList<>();
    try {
      // as a restore sees the project: what lies behind a linked directory is not its file
      Set<String> linked = parts.workTree().linkedDirectories(wanted.keySet());
      for (var entry : wanted.entrySet()) {
        String path = entry.getKey();
        FileVersion version = entry.getValue();
        WorkTree.DiskFile disk = WorkTree.below(path, linked) ? WorkTree.DiskFile.ABSENT
            : parts.workTree().read(path, parts.repo());
        if (disk.matches(version)) {
          continue;
        }
        byte[] at = version.exists() ? parts.repo().read(version.blob()) : null;
        boolean onDisk = !disk.blocked() && disk.kind() != FileKind.ABSENT;
        byte[] now = onDisk ? parts.workTree().readState(path).contentUnsafe() : null;
        diffs.add(unifiedDiff(path, at, version.kind(), version.mode(), now, disk.blocked() ? null : disk.kind(), disk.mode()));
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read the project's files for the diff: " + e.getMessage(), e);
    }
    return new CheckpointDiff(number, diffs);
  }

  /** The lines added and removed by {@code node}'s own changes, per file. */
  List<CheckpointDiff.FileDiff> ofChanges(Node node) {
    List<CheckpointDiff.FileDiff> diffs = new ArrayList<>();
    try {
      for (FileChange change : node.changes.values()) {
        byte[] before = change.before().exists() ? parts.repo().read(change.before().blob()) : null;
        byte[] after = change.after().exists() ? parts.repo().read(change.after().blob()) : null;
        diffs.add(unifiedDiff(change.path(), before, change.before().kind(), change.before().mode(), after,
            change.after().kind(), change.after().mode()));
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read checkpoint #" + node.number + ": " + e.getMessage(), e);
    }
    return diffs;
  }

  static CheckpointDiff.FileDiff unifiedDiff(String path, byte[] old, FileKind oldKind, byte[] now, FileKind nowKind) {
    return unifiedDiff(path, old, oldKind, FileVersion.NO_MODE, now, nowKind, FileVersion.NO_MODE);
  }

  /** A diff of two versions; a mode that changed (kind, or permission bits where both are known) gets git's mode lines. */
  static CheckpointDiff.FileDiff unifiedDiff(String path, byte[] old, FileKind oldKind, int oldMode, byte[] now,
      FileKind nowKind, int nowMode) {
    StringBuilder header = new StringBuilder();
    header.append("diff --waymark a/").append(path).append(" b/").append(path).append('\n');
    if (now == null && nowKind == null) {
      header.append("# b/").append(path).append(" is a directory or special file on disk\n");
    }
    boolean bitsDiffer = oldMode != FileVersion.NO_MODE && nowMode != FileVersion.NO_MODE && oldMode != nowMode;
    if (oldKind != null && nowKind != null && (oldKind != nowKind || bitsDiffer) && old != null && now != null) {
      header.append("old mode ").append(modeLine(oldKind, oldMode)).append('\n');
      header.append("new mode ").append(modeLine(nowKind, nowMode)).append('\n');
    }
    byte[] a = old == null ? new byte[0] : old;
    byte[] b = now == null ? new byte[0] : now;
    if (RawText.isBinary(a) || RawText.isBinary(b)) {
      header.append("Binary files ").append(old == null ? "/dev/null" : "a/" + path).append(" and ")
          .append(now == null ? "/dev/null" : "b/" + path).append(" differ\n");
      return new CheckpointDiff.FileDiff(path, header.toString(), 0, 0, true);
    }
    header.append("--- ").append(old == null ? "/dev/null" : "a/" + path).append('\n');
    header.append("+++ ").append(now == null ? "/dev/null" : "b/" + path).append('\n');
    RawText left = new RawText(a);
    RawText right = new RawText(b);
    EditList edits = new HistogramDiff().diff(RawTextComparator.DEFAULT, left, right);
    int added = 0;
    int removed = 0;
    for (Edit edit : edits) {
      added += edit.getLengthB();
      removed += edit.getLengthA();
    }
    ByteArrayOutputStream hunks = new ByteArrayOutputStream();
    try (DiffFormatter formatter = new DiffFormatter(hunks)) {
      formatter.format(edits, left, right);
      formatter.flush();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new CheckpointDiff.FileDiff(path, header + hunks.toString(StandardCharsets.UTF_8), added, removed, false);
  }

  /** Git's 100644 or 100755, or with the recorded bits where there are some (100600). */
  private static String modeLine(FileKind kind, int mode) {
    return mode == FileVersion.NO_MODE || kind == FileKind.SYMLINK ? kind.gitMode().toString()
        : "100" + FileModes.octal(mode).substring(1);
  }
}
