package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.diff.RawText;

/**
 * How two checkpoints differ, of one tab or of two, read from the shadow repository alone: the
 * cost grows with the paths the tabs changed and the bytes of those that differ, never with the
 * project. A path one tab never changed is, on its side, as it was before the other tab first
 * changed it (two attempts from one start show what each did).
 */
public final class CheckpointComparison {
  /** Bigger files are said to differ, not diffed line by line (as a merge, which stops there too). */
  public static final int DIFF_LIMIT = ShadowRepository.MERGEABLE_LIMIT;

  /** One path that differs, with each side's version. */
  public record Delta(String path, FileVersion from, FileVersion to) {}

  /** One file's difference as text: the header, then the hunks ({@code binary}: a note in the header, no hunks). */
  public record FileText(Delta delta, String header, List<String> hunks, int added, int removed, boolean binary) {
    public FileText {
      hunks = List.copyOf(hunks);
    }
  }

  private static final ShadowRepository.Limited EMPTY = new ShadowRepository.Limited(0, new byte[0]);

  private final ShadowRepository repo;

  CheckpointComparison(ShadowRepository repo) {
    this.repo = repo;
  }

  /** The paths that differ from {@code from} to {@code to}, sorted; only {@code paths} (and what lies under them) when some are given. */
  public static List<Delta> deltas(CheckpointAt from, CheckpointAt to, Set<String> paths) {
    Map<String, FileVersion> a = from.versions();
    Map<String, FileVersion> b = to.versions();
    boolean sameTab = from.tabId().equals(to.tabId());
    Map<String, FileVersion> aStart = sameTab ? a : new CheckpointAt(from.tree(), 0).versions();
    Map<String, FileVersion> bStart = sameTab ? b : new CheckpointAt(to.tree(), 0).versions();
    Set<String> all = new TreeSet<>(a.keySet());
    all.addAll(b.keySet());
    List<Delta> deltas = new ArrayList<>();
    for (String path : all) {
      if (!paths.isEmpty() && paths.stream().noneMatch(p -> path.equals(p) || path.startsWith(p.endsWith("/") ? p : p + "/"))) {
        continue;
      }
      FileVersion before = a.containsKey(path) ? a.get(path) : bStart.get(path);
      FileVersion after = b.containsKey(path) ? b.get(path) : aStart.get(path);
      if (!same(before, after)) {
        deltas.add(new Delta(path, before, after));
      }
    }
    return deltas;
  }

  /** Equal content and kind, and equal modes where both sides recorded one. */
  static boolean same(FileVersion a, FileVersion b) {
    return a.sameContent(b) && (!a.hasMode() || !b.hasMode() || a.mode() == b.mode());
  }

  /** The delta as git shows it. */
  public FileText text(Delta delta) {
    String path = delta.path();
    FileVersion from = delta.from();
    FileVersion to = delta.to();
    StringBuilder header = new StringBuilder("diff --waymark a/" + path + " b/" + path + "\n");
    if (!from.exists()) {
      header.append("new file mode ").append(modeLine(to)).append('\n');
    } else if (!to.exists()) {
      header.append("deleted file mode ").append(modeLine(from)).append('\n');
    } else if (!modeLine(from).equals(modeLine(to))) {
      header.append("old mode ").append(modeLine(from)).append('\n').append("new mode ").append(modeLine(to)).append('\n');
    }
    String fromName = from.exists() ? "a/" + path : "/dev/null";
    String toName = to.exists() ? "b/" + path : "/dev/null";
    if (from.exists() && to.exists() && from.sameContent(to)) {
      return new FileText(delta, header.toString(), List.of(), 0, 0, false); // the mode alone
    }
    try {
      ShadowRepository.Limited fromBlob = from.exists() ? repo.readUpTo(from.blob(), DIFF_LIMIT) : EMPTY;
      ShadowRepository.Limited toBlob = to.exists() ? repo.readUpTo(to.blob(), DIFF_LIMIT) : EMPTY;
      if (fromBlob.bytes() == null || toBlob.bytes() == null) {
        header.append("Large files ").append(fromName).append(" (").append(fromBlob.size()).append(" bytes) and ")
            .append(toName).append(" (").append(toBlob.size()).append(" bytes) differ\n");
        return new FileText(delta, header.toString(), List.of(), 0, 0, true);
      }
      byte[] a = fromBlob.bytes();
      byte[] b = toBlob.bytes();
      if (RawText.isBinary(a) || RawText.isBinary(b)) {
        header.append("Binary files ").append(fromName).append(" and ").append(toName).append(" differ\n");
        return new FileText(delta, header.toString(), List.of(), 0, 0, true);
      }
      header.append("--- ").append(fromName).append('\n').append("+++ ").append(toName).append('\n');
      Hunks hunks = new Hunks(a, b);
      return new FileText(delta, header.toString(), hunks.texts(), hunks.added(), hunks.removed(), false);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read " + path + " for the diff: " + e.getMessage(), e);
    }
  }

  /**
   * What to take into the project for one file or one hunk ({@code hunk} -1: the whole file) of a
   * delta, as the side {@code toSide} (else the {@code from} side) has it: the version the project
   * goes from ({@code base}) and to ({@code target}), to be merged with later edits as a revert is.
   */
  Taken taken(Delta delta, int hunk, boolean toSide) {
    FileVersion base = toSide ? delta.from() : delta.to();
    FileVersion target = toSide ? delta.to() : delta.from();
    if (hunk < 0) {
      return new Taken(base, target);
    }
    FileText text = text(delta);
    if (text.binary() || text.hunks().isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, delta.path() + " has no hunks to take (" + (text.binary() ? "binary or too large"
          : "only its mode differs") + "); take the whole file.");
    }
    if (hunk >= text.hunks().size()) {
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, delta.path() + " has " + text.hunks().size() + " hunk"
          + (text.hunks().size() == 1 ? "" : "s") + "; there is no hunk " + (hunk + 1) + ".");
    }
    try {
      Hunks hunks = new Hunks(content(delta.from()), content(delta.to()));
      byte[] bytes = toSide ? hunks.oldWithNew(hunk) : hunks.newWithOld(hunk);
      // the hunk alone keeps the kind and mode of the side it goes into, unless that side has no file
      FileVersion shape = base.exists() ? base : target;
      FileKind kind = shape.kind();
      return new Taken(base, new FileVersion(kind, repo.insertBlobs(List.of(bytes)).get(0), shape.mode()));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read " + delta.path() + ": " + e.getMessage(), e);
    }
  }

  /** What a take plans for one path: from {@code base} to {@code target}. */
  record Taken(FileVersion base, FileVersion target) {}

  private byte[] content(FileVersion version) throws IOException {
    return version.exists() ? repo.read(version.blob()) : new byte[0];
  }

  private static String modeLine(FileVersion v) {
    return v.hasMode() && v.kind() != FileKind.SYMLINK
        ? "100" + FileModes.octal(v.mode()).substring(1)
        : v.kind().gitMode().toString();
  }
}
