package dev.waymark.core.checkpoint;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.diff.EditList;
import org.eclipse.jgit.diff.HistogramDiff;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;

/**
 * The hunks of a text diff, as git shows them (three lines of context; edits closer than twice that
 * share a hunk), each on its own so that one can be shown, counted or taken alone.
 */
final class Hunks {
  static final int CONTEXT = 3;

  private final byte[] a;
  private final byte[] b;
  private final RawText left;
  private final RawText right;
  private final List<EditList> groups = new ArrayList<>();

  Hunks(byte[] a, byte[] b) {
    this.a = a;
    this.b = b;
    this.left = new RawText(a);
    this.right = new RawText(b);
    EditList edits = new HistogramDiff().diff(RawTextComparator.DEFAULT, left, right);
    EditList group = new EditList();
    for (Edit edit : edits) {
      if (!group.isEmpty()) {
        Edit last = group.get(group.size() - 1);
        // DiffFormatter's rule for one hunk
        boolean near = edit.getBeginA() - last.getEndA() <= 2 * CONTEXT || edit.getBeginB() - last.getEndB() <= 2 * CONTEXT;
        if (!near) {
          groups.add(group);
          group = new EditList();
        }
      }
      group.add(edit);
    }
    if (!group.isEmpty()) {
      groups.add(group);
    }
  }

  int count() {
    return groups.size();
  }

  int added() {
    return groups.stream().flatMap(List::stream).mapToInt(Edit::getLengthB).sum();
  }

  int removed() {
    return groups.stream().flatMap(List::stream).mapToInt(Edit::getLengthA).sum();
  }

  /** Each hunk's text, from its {@code @@} line. */
  List<String> texts() {
    List<String> texts = new ArrayList<>();
    for (EditList group : groups) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (DiffFormatter formatter = new DiffFormatter(out)) {
        formatter.setContext(CONTEXT);
        formatter.format(group, left, right);
        formatter.flush();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      texts.add(out.toString(StandardCharsets.UTF_8));
    }
    return texts;
  }

  /** The old side with hunk {@code index} made as the new side has it, every other line the old side's. */
  byte[] oldWithNew(int index) {
    return splice(a, lineStarts(a), b, lineStarts(b), groups.get(index), true);
  }

  /** The new side with hunk {@code index} made as the old side has it, every other line the new side's. */
  byte[] newWithOld(int index) {
    return splice(b, lineStarts(b), a, lineStarts(a), groups.get(index), false);
  }

  /** {@code base} with the lines of each edit replaced by {@code other}'s lines of it. */
  private static byte[] splice(byte[] base, int[] baseLines, byte[] other, int[] otherLines, EditList edits,
      boolean baseIsA) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(base.length + 64);
    int at = 0; // the line of base copied up to
    for (Edit e : edits) {
      int begin = baseIsA ? e.getBeginA() : e.getBeginB();
      int end = baseIsA ? e.getEndA() : e.getEndB();
      int otherBegin = baseIsA ? e.getBeginB() : e.getBeginA();
      int otherEnd = baseIsA ? e.getEndB() : e.getEndA();
      out.write(base, baseLines[at], baseLines[begin] - baseLines[at]);
      out.write(other, otherLines[otherBegin], otherLines[otherEnd] - otherLines[otherBegin]);
      at = end;
    }
    out.write(base, baseLines[at], base.length - baseLines[at]);
    return out.toByteArray();
  }

  /** Where each line starts, and one more entry for the end: line i is {@code [starts[i], starts[i+1])}. */
  private static int[] lineStarts(byte[] text) {
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int i = 0; i < text.length; i++) {
      if (text[i] == '\n' && i + 1 < text.length) {
        starts.add(i + 1);
      }
    }
    int[] all = new int[starts.size() + 1];
    for (int i = 0; i < starts.size(); i++) {
      all[i] = starts.get(i);
    }
    all[starts.size()] = text.length;
    if (text.length == 0) {
      return new int[] {0};
    }
    return all;
  }
}
