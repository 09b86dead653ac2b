package dev.waymark.tui.chat;

import dev.waymark.core.protocol.DiffView;

/** A diff as {@code git diff --stat} shows it: a line per file with a bar of + and -, then the totals. */
final class DiffStat {
  private static final int BAR = 40;

  private DiffStat() {}

  static String of(DiffView diff) {
    int width = diff.files().stream().mapToInt(f -> f.path().length()).max().orElse(0);
    int most = diff.files().stream().mapToInt(f -> f.added() + f.removed()).max().orElse(0);
    StringBuilder text = new StringBuilder();
    for (DiffView.FileDiff f : diff.files()) {
      String count = "Bin";
      if (!f.binary()) {
        int total = f.added() + f.removed();
        int plus = most <= BAR ? f.added() : (int) Math.round(f.added() * (double) BAR / most);
        int minus = most <= BAR ? f.removed() : (int) Math.round(f.removed() * (double) BAR / most);
        count = total + (total == 0 ? "" : " " + "+".repeat(plus) + "-".repeat(minus));
      }
      text.append(' ').append(f.path()).append(" ".repeat(width - f.path().length())).append(" | ").append(count)
          .append('\n');
    }
    int n = diff.files().size();
    text.append(' ').append(n).append(n == 1 ? " file changed" : " files changed").append(", ").append(diff.added())
        .append(diff.added() == 1 ? " insertion(+)" : " insertions(+)").append(", ").append(diff.removed())
        .append(diff.removed() == 1 ? " deletion(-)" : " deletions(-)");
    return text.toString();
  }
}
