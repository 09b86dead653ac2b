package dev.waymark.app;

import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ComparisonView;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/**
 * {@code waymark checkpoints diff A B [-- PATH...] [--stat] [--json]}: how two checkpoints differ,
 * of the tab or of two tabs of the session ({@link CheckpointRef}: {@code N}, {@code live}, a save,
 * {@code TAB:} before it). {@code diff} with one checkpoint or none stays the disk against it.
 */
final class CheckpointsDiff {
  private CheckpointsDiff() {}

  /** The Compare command for {@code A B [-- PATH...]}; {@code paths} are the words after "--". */
  static Command.Compare command(CommandLine cli, String first, List<String> rest, List<String> paths) {
    List<String> named = new ArrayList<>();
    if (first != null) {
      named.add(first);
    }
    named.addAll(rest.subList(0, rest.size() - paths.size()));
    if (named.size() != 2) {
      throw new CommandLine.ParameterException(cli, "Usage: `checkpoints diff A B [-- PATH...]` (two checkpoints: N, "
          + "live or a save's name, TAB:N for another tab), or `checkpoints diff [N]` for the disk against one.");
    }
    try {
      return new Command.Compare(CheckpointRef.parse(named.get(0)), CheckpointRef.parse(named.get(1)), paths);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cli, e.getMessage());
    }
  }

  static void print(ComparisonView view, boolean json, boolean stat, PrintWriter out) throws Exception {
    if (json) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("from", view.from().toString());
      o.put("to", view.to().toString());
      o.put("filesChanged", view.files().size());
      o.put("added", view.added());
      o.put("removed", view.removed());
      List<Map<String, Object>> files = new ArrayList<>();
      for (ComparisonView.FileComparison f : view.files()) {
        Map<String, Object> file = new LinkedHashMap<>();
        file.put("path", f.path());
        file.put("change", f.change().name().toLowerCase(Locale.ROOT));
        file.put("added", f.added());
        file.put("removed", f.removed());
        file.put("binary", f.binary());
        if (!stat) {
          file.put("hunks", f.hunks());
          file.put("unified", f.unified());
        }
        files.add(file);
      }
      o.put("files", files);
      out.println(JsonOutput.JSON.writeValueAsString(o));
    } else if (view.isEmpty()) {
      out.println(view.from() + " and " + view.to() + " hold the same files.");
    } else if (stat) {
      out.print(stat(view));
    } else {
      out.print(view.unified());
    }
    out.flush();
  }

  /** As {@code git diff --stat}: one line per file with a bar of + and -, then the totals. */
  static String stat(ComparisonView view) {
    return stat(view.files().stream().map(f -> new StatRow(f.path(), f.added(), f.removed(), f.binary())).toList());
  }

  /** One file of a stat, whichever diff it comes from. */
  record StatRow(String path, int added, int removed, boolean binary) {}

  static String stat(List<StatRow> rows) {
    int width = rows.stream().mapToInt(f -> f.path().length()).max().orElse(0);
    int most = rows.stream().mapToInt(f -> f.added() + f.removed()).max().orElse(0);
    int added = rows.stream().mapToInt(StatRow::added).sum();
    int removed = rows.stream().mapToInt(StatRow::removed).sum();
    int bar = 40;
    StringBuilder text = new StringBuilder();
    for (StatRow f : rows) {
      String count;
      if (f.binary()) {
        count = "Bin";
      } else {
        int total = f.added() + f.removed();
        int plus = most <= bar ? f.added() : (int) Math.round(f.added() * (double) bar / most);
        int minus = most <= bar ? f.removed() : (int) Math.round(f.removed() * (double) bar / most);
        count = total + (total == 0 ? "" : " " + "+".repeat(plus) + "-".repeat(minus));
      }
      text.append(' ').append(f.path()).append(" ".repeat(width - f.path().length())).append(" | ").append(count)
          .append('\n');
    }
    int n = rows.size();
    text.append(' ').append(n).append(n == 1 ? " file changed" : " files changed").append(", ").append(added)
        .append(added == 1 ? " insertion(+)" : " insertions(+)").append(", ").append(removed)
        .append(removed == 1 ? " deletion(-)" : " deletions(-)").append('\n');
    return text.toString();
  }
}
