package dev.waymark.tui.chat;

import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code /checkpoint} list as a tree: a checkpoint's first child follows it in its column, a
 * later one (a branch) starts a column further in, with its own children under it. A checkpoint
 * off the live path is "undone" when it lies under live (redo and goto reach it) and "abandoned"
 * when a branch left it.
 */
final class CheckpointListing {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm");

  private CheckpointListing() {}

  static List<Line> render(List<CheckpointSummary> all, int live) {
    Map<Integer, CheckpointSummary> byNumber = new HashMap<>();
    Map<Integer, List<CheckpointSummary>> children = new HashMap<>();
    for (CheckpointSummary c : all) {
      byNumber.put(c.number(), c);
    }
    List<CheckpointSummary> roots = new ArrayList<>();
    for (CheckpointSummary c : all) {
      if (c.parent().isPresent() && byNumber.containsKey(c.parent().getAsInt())) {
        children.computeIfAbsent(c.parent().getAsInt(), p -> new ArrayList<>()).add(c);
      } else {
        roots.add(c);
      }
    }
    children.values().forEach(list -> list.sort(Comparator.comparingInt(CheckpointSummary::number)));
    List<Line> rows = new ArrayList<>();
    rows.add(Line.of("Checkpoints (live #" + live + "):", Style.of(Tone.ACCENT).bolded()));
    roots.sort(Comparator.comparingInt(CheckpointSummary::number));
    for (CheckpointSummary root : roots) {
      walk(root, live, byNumber, children, rows);
    }
    return rows;
  }

  private record Place(CheckpointSummary checkpoint, int depth, boolean startsBranch) {}

  /** Depth first, a first child's whole line before the branches beside it; a stack, as histories run long. */
  private static void walk(CheckpointSummary top, int live, Map<Integer, CheckpointSummary> byNumber,
      Map<Integer, List<CheckpointSummary>> children, List<Line> rows) {
    java.util.Deque<Place> stack = new java.util.ArrayDeque<>();
    stack.push(new Place(top, 0, false));
    while (!stack.isEmpty()) {
      Place at = stack.pop();
      rows.add(row(at.checkpoint(), at.depth(), at.startsBranch(), live, byNumber));
      List<CheckpointSummary> kids = children.getOrDefault(at.checkpoint().number(), List.of());
      for (int i = kids.size() - 1; i >= 1; i--) {
        stack.push(new Place(kids.get(i), at.depth() + 1, true));
      }
      if (!kids.isEmpty()) {
        stack.push(new Place(kids.get(0), at.depth(), false));
      }
    }
  }

  private static Line row(CheckpointSummary c, int depth, boolean startsBranch, int live, Map<Integer, CheckpointSummary> byNumber) {
    boolean isLive = c.number() == live;
    Style style = c.onLivePath() ? Style.PLAIN : Style.of(Tone.MUTED);
    List<Span> spans = new ArrayList<>();
    spans.add(Span.of(isLive ? "▸ " : "  ", Tone.ACCENT));
    spans.add(Span.of(depth == 0 ? "" : "  ".repeat(depth - 1) + (startsBranch ? "└ " : "  "), Tone.MUTED));
    spans.add(new Span(String.format("#%-4d", c.number()), style.bolded()));
    spans.add(Span.of(LocalDateTime.ofInstant(c.created(), ZoneId.systemDefault()).format(TIME) + "  ", Tone.MUTED));
    String prompt = c.number() == 0 ? "(start)" : c.prompt().strip().lines().findFirst().orElse("");
    if (prompt.length() > 48) {
      prompt = prompt.substring(0, 47) + "…";
    }
    spans.add(new Span(prompt, style));
    if (c.filesChanged() > 0) {
      spans.add(Span.of("  " + c.filesChanged() + (c.filesChanged() == 1 ? " file " : " files "), Tone.MUTED));
      spans.add(Span.of("+" + c.added(), Tone.ADDED));
      spans.add(Span.of(" −" + c.removed(), Tone.REMOVED));
    }
    if (c.status() != TurnStatus.DONE) {
      spans.add(Span.of("  " + c.status().name().toLowerCase(Locale.ROOT), Tone.WARNING));
    }
    if (startsBranch) {
      spans.add(Span.of("  branch from #" + c.parent().getAsInt(), Tone.MUTED));
    }
    if (isLive) {
      spans.add(Span.of("  live", Tone.ACCENT));
    } else if (!c.onLivePath()) {
      spans.add(Span.of(descendsFrom(c, live, byNumber) ? "  undone (redo)" : "  abandoned", Tone.MUTED));
    }
    for (String name : c.savedNames().stream().sorted().toList()) {
      spans.add(Span.of("  \"" + name + "\"", Tone.ACCENT));
    }
    return new Line(spans);
  }

  /** True when {@code live} is an ancestor of {@code c}. */
  private static boolean descendsFrom(CheckpointSummary c, int live, Map<Integer, CheckpointSummary> byNumber) {
    CheckpointSummary at = parentOf(c, byNumber);
    for (int guard = 0; at != null && guard <= byNumber.size(); guard++) {
      if (at.number() == live) {
        return true;
      }
      at = parentOf(at, byNumber);
    }
    return false;
  }

  private static CheckpointSummary parentOf(CheckpointSummary c, Map<Integer, CheckpointSummary> byNumber) {
    return c.parent().isPresent() ? byNumber.get(c.parent().getAsInt()) : null;
  }
}
