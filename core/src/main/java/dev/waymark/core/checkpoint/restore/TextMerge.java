package dev.waymark.core.checkpoint.restore;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.diff.DiffAlgorithm;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;
import org.eclipse.jgit.merge.MergeAlgorithm;
import org.eclipse.jgit.merge.MergeChunk;
import org.eclipse.jgit.merge.MergeResult;

/** Line-based three-way merge of text files, byte exact (line endings and a missing final newline kept). */
public final class TextMerge {
  private TextMerge() {}

  /**
   * Merges the change {@code base → theirs} into {@code ours}. Empty when the two sides touch the
   * same lines, or when any side is binary.
   */
  public static Optional<byte[]> merge(byte[] base, byte[] ours, byte[] theirs) {
    if (RawText.isBinary(base) || RawText.isBinary(ours) || RawText.isBinary(theirs)) {
      return Optional.empty();
    }
    MergeAlgorithm algorithm =
        new MergeAlgorithm(DiffAlgorithm.getAlgorithm(DiffAlgorithm.SupportedAlgorithm.HISTOGRAM));
    MergeResult<RawText> result = algorithm.merge(RawTextComparator.DEFAULT,
        new RawText(base), new RawText(ours), new RawText(theirs));
    if (result.containsConflicts()) {
      return Optional.empty();
    }
    List<RawText> sequences = result.getSequences();
    ByteArrayOutputStream out = new ByteArrayOutputStream(ours.length + theirs.length / 4 + 16);
    boolean unterminated = false;
    try {
      for (MergeChunk chunk : result) {
        RawText text = sequences.get(chunk.getSequenceIndex());
        for (int line = chunk.getBegin(); line < chunk.getEnd(); line++) {
          if (unterminated) {
            out.write('\n'); // a side's unterminated last line is followed by more lines
          }
          text.writeLine(out, line);
          unterminated = line == text.size() - 1 && text.isMissingNewlineAtEnd();
          if (!unterminated) {
            out.write('\n');
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Optional.of(out.toByteArray());
  }
}
