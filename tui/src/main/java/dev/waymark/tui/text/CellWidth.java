package dev.waymark.tui.text;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * How many terminal columns text takes, done per grapheme cluster. Lanterna measures per
 * {@code char}, and Java 17's BreakIterator splits emoji sequences, so both are wrong for emoji,
 * skin tones, flags and combining marks (research/java-stack.md §1.6).
 */
public final class CellWidth {
  private static final int[] WIDE = loadWideRanges();
  private static final int ZWJ = 0x200D;

  private CellWidth() {}

  /** Columns taken by {@code text}: the sum over its clusters. */
  public static int of(String text) {
    int width = 0;
    int i = 0;
    while (i < text.length()) {
      int end = clusterEnd(text, i);
      width += clusterWidth(text.substring(i, end));
      i = end;
    }
    return width;
  }

  /** The grapheme clusters of {@code text}: what a terminal draws as one character. */
  public static List<String> clusters(String text) {
    List<String> all = new ArrayList<>();
    int i = 0;
    while (i < text.length()) {
      int end = clusterEnd(text, i);
      all.add(text.substring(i, end));
      i = end;
    }
    return all;
  }

  /** The end of the cluster that starts at {@code start}. */
  public static int clusterEnd(String text, int start) {
    int first = text.codePointAt(start);
    int i = start + Character.charCount(first);
    if (isRegionalIndicator(first) && i < text.length() && isRegionalIndicator(text.codePointAt(i))) {
      return i + Character.charCount(text.codePointAt(i)); // a flag is a pair
    }
    while (i < text.length()) {
      int cp = text.codePointAt(i);
      if (extends_(cp)) {
        i += Character.charCount(cp);
      } else if (cp == ZWJ) {
        i += Character.charCount(cp);
        if (i < text.length()) {
          i += Character.charCount(text.codePointAt(i));
        }
      } else {
        break;
      }
    }
    return i;
  }

  /** Columns of one cluster: 0, 1 or 2. */
  public static int clusterWidth(String cluster) {
    if (cluster.isEmpty()) {
      return 0;
    }
    int first = cluster.codePointAt(0);
    if (Character.isISOControl(first) || isZeroWidth(first)) {
      return 0;
    }
    if (isWide(first) || isRegionalIndicator(first)) {
      return 2;
    }
    // text-style symbols become emoji with VS16, and ZWJ sequences and skin tones draw as one emoji
    if (cluster.indexOf('\uFE0F') >= 0 || cluster.indexOf(ZWJ) >= 0 || hasSkinTone(cluster)) {
      return 2;
    }
    return 1;
  }

  /** The longest prefix of {@code text} that fits in {@code columns}, never splitting a cluster. */
  public static String truncate(String text, int columns) {
    int width = 0;
    int i = 0;
    while (i < text.length()) {
      int end = clusterEnd(text, i);
      int w = clusterWidth(text.substring(i, end));
      if (width + w > columns) {
        break;
      }
      width += w;
      i = end;
    }
    return text.substring(0, i);
  }

  private static boolean extends_(int cp) {
    int type = Character.getType(cp);
    return type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK
        || type == Character.COMBINING_SPACING_MARK
        || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0x1F3FB && cp <= 0x1F3FF) || (cp >= 0xE0020 && cp <= 0xE007F);
  }

  private static boolean isZeroWidth(int cp) {
    int type = Character.getType(cp);
    return type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || type == Character.FORMAT
        || (cp >= 0xFE00 && cp <= 0xFE0F);
  }

  private static boolean hasSkinTone(String cluster) {
    return cluster.codePoints().anyMatch(cp -> cp >= 0x1F3FB && cp <= 0x1F3FF);
  }

  private static boolean isRegionalIndicator(int cp) {
    return cp >= 0x1F1E6 && cp <= 0x1F1FF;
  }

  static boolean isWide(int cp) {
    if (cp < 0x1100) {
      return false;
    }
    int lo = 0;
    int hi = WIDE.length / 2 - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (cp < WIDE[2 * mid]) {
        hi = mid - 1;
      } else if (cp > WIDE[2 * mid + 1]) {
        lo = mid + 1;
      } else {
        return true;
      }
    }
    return false;
  }

  private static int[] loadWideRanges() {
    List<int[]> ranges = new ArrayList<>();
    try (InputStream in = CellWidth.class.getResourceAsStream("wide-ranges.txt")) {
      if (in == null) {
        throw new IllegalStateException("wide-ranges.txt is missing from the classpath");
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] parts = line.trim().split("\\s+");
        ranges.add(new int[] {Integer.parseInt(parts[0], 16), Integer.parseInt(parts[1], 16)});
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int[] flat = new int[ranges.size() * 2];
    for (int i = 0; i < ranges.size(); i++) {
      flat[2 * i] = ranges.get(i)[0];
      flat[2 * i + 1] = ranges.get(i)[1];
    }
    return flat;
  }
}
