package dev.waymark.tui.terminal;

import dev.waymark.tui.text.CellWidth;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * What Lanterna's stream terminal writes, one grapheme cluster at a time. Lanterna encodes each
 * {@code char} on its own, so a character outside the BMP (🚀) reaches the terminal as two
 * {@code ?}. Here a cluster goes out as its UTF-8 bytes, and after one of several code points (a
 * skin tone, a ZWJ family, a flag), whose width terminals disagree on, the cursor is put where
 * the screen expects the next cell, so the columns after it stay right whatever the terminal drew.
 */
final class ClusterOutput {
  /** Where the bytes go, and how the cursor is moved (0-based). */
  interface Sink {
    void write(byte[] bytes) throws IOException;

    void moveTo(int column, int row) throws IOException;

    /** One BMP character, the way Lanterna writes it (it drops non-printable ones). */
    void putChar(char c) throws IOException;
  }

  private int column;
  private int row;

  /** The cursor was moved to ({@code column}, {@code row}). */
  void movedTo(int newColumn, int newRow) {
    column = newColumn;
    row = newRow;
  }

  void put(String text, Sink sink) throws IOException {
    for (String cluster : CellWidth.clusters(text)) {
      int width = CellWidth.clusterWidth(cluster);
      if (cluster.length() == 1) {
        sink.putChar(cluster.charAt(0));
        column += width;
      } else {
        sink.write(cluster.getBytes(StandardCharsets.UTF_8));
        column += width;
        if (cluster.codePointCount(0, cluster.length()) > 1) {
          sink.moveTo(column, row);
        }
      }
    }
  }
}
