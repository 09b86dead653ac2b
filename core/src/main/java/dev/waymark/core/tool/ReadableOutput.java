package dev.waymark.core.tool;

import java.util.regex.Pattern;

/**
 * A command's output made safe to show: a binary file printed by {@code cat}, a build's colours or a
 * progress bar's carriage returns would otherwise reach the terminal (and the model) as they are.
 */
final class ReadableOutput {
  /** Colour and cursor codes (CSI), terminal titles and links (OSC), and the two-character escapes. */
  private static final Pattern ESCAPES = Pattern.compile(
      "\u001b\\[[0-?]*[ -/]*[@-~]|\u001b\\][^\u0007\u001b]*(?:\u0007|\u001b\\\\)?|\u001b[@-Z\\\\-_]");
  /** The share of characters that are not text past which the output is taken for binary. */
  private static final double BINARY_SHARE = 0.1;

  private ReadableOutput() {}

  /** {@code raw} as text a person reads; {@code total} is how many bytes the command wrote. */
  static String of(String raw, long total) {
    if (binary(raw)) {
      return "[binary output: " + total + " bytes, not shown]";
    }
    String text = ESCAPES.matcher(raw).replaceAll("").replace("\r\n", "\n").replace('\r', '\n');
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\n' || c == '\t' || c >= ' ' && c != 0x7f) {
        out.append(c);
      } else {
        out.append(c == 0x7f ? '\u2421' : (char) ('\u2400' + c)); // the control's own symbol: seen, harmless
      }
    }
    return out.toString();
  }

  private static boolean binary(String raw) {
    if (raw.isEmpty()) {
      return false;
    }
    long odd = raw.chars().filter(c -> c == '\uFFFD' || c < ' ' && c != '\n' && c != '\t' && c != '\r' && c != 0x1b
        && c != '\b' && c != '\f').count();
    return odd > raw.length() * BINARY_SHARE;
  }
}
