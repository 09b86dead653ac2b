package dev.waymark.tui.chat;

import dev.waymark.core.agent.CheckpointOutline;
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
import java.util.List;
import java.util.Locale;

/**
 * The {@code /checkpoint} list as a tree, laid out by {@link CheckpointOutline} (as the headless
 * list is): the way to live stays in its column, a branch starts a column further in right under
 * the checkpoint it left. Off the live path a checkpoint is "undone" when it lies under live (redo
 * and goto reach it) and "abandoned" when a branch left it.
 */
final class CheckpointListing {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("MM-dd HH:mm");

  private CheckpointListing() {}

  static List<Line> render(List<CheckpointSummary> all, int live) {
    List<Line> rows = new ArrayList<>();
    rows.add(Line.of("Checkpoints (live #" + live + "):", Style.of(Tone.ACCENT).bolded()));
    for (CheckpointOutline.Row row : CheckpointOutline.rows(all, live)) {
      rows.add(row(row));
    }
    return rows;
  }

  private static Line row(CheckpointOutline.Row row) {
    CheckpointSummary c = row.checkpoint();
    int depth = row.depth();
    boolean startsBranch = row.startsBranch();
    boolean isLive = row.state() == CheckpointOutline.State.LIVE;
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
    switch (row.state()) {
      case LIVE -> spans.add(Span.of("  live", Tone.ACCENT));
      case UNDONE -> spans.add(Span.of("  undone (redo)", Tone.MUTED));
      case ABANDONED -> spans.add(Span.of("  abandoned", Tone.MUTED));
      default -> { }
    }
    for (String name : c.savedNames().stream().sorted().toList()) {
      spans.add(Span.of("  \"" + name + "\"", Tone.ACCENT));
    }
    return new Line(spans);
  }
}
