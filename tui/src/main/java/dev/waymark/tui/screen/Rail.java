package dev.waymark.tui.screen;

import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.tui.chat.CheckpointMark;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import java.util.ArrayList;
import java.util.List;

/**
 * The checkpoint rail: one dot per checkpoint, oldest at the top. With more checkpoints than rows
 * it shows {@code +N} above and below and keeps the viewed (or live) one in its window.
 */
public final class Rail {
  public static final int WIDTH = 4;

  private Rail() {}

  public static List<Line> render(TabState tab, int height, String spinnerFrame) {
    List<CheckpointMark> marks = tab.checkpoints();
    List<Line> rows = new ArrayList<>(height);
    if (height <= 0) {
      return rows;
    }
    int focus = tab.viewed().orElse(marks.size() - 1);
    int count = marks.size();
    int first = 0;
    int last = count; // exclusive
    if (count > height) {
      int slots = Math.max(1, height - 2);
      first = Math.max(0, Math.min(focus - slots / 2, count - slots));
      last = first + slots;
      if (first == 0) {
        last = Math.min(count, height - 1);
      }
      if (last == count) {
        first = Math.max(0, count - (height - 1));
      }
    }
    if (first > 0) {
      rows.add(counter(first));
    }
    for (int i = first; i < last && rows.size() < height; i++) {
      rows.add(Line.of(Span.plain(" "), dot(marks.get(i), tab, spinnerFrame)));
    }
    if (last < count && rows.size() < height) {
      rows.add(counter(count - last));
    }
    while (rows.size() < height) {
      rows.add(Line.EMPTY);
    }
    return rows;
  }

  private static Line counter(int hidden) {
    String text = "+" + hidden;
    if (text.length() > WIDTH) {
      text = "+" + (hidden >= 1000 ? hidden / 1000 + "k" : String.valueOf(hidden));
    }
    return Line.of(Span.of(text.length() > WIDTH ? text.substring(0, WIDTH) : text, Tone.MUTED));
  }

  static Span dot(CheckpointMark mark, TabState tab, String spinnerFrame) {
    if (tab.viewed().isPresent() && tab.viewed().get() == mark.number()) {
      return new Span("●", Style.of(Tone.VIEWED).bolded());
    }
    if (mark.status() == TurnStatus.RUNNING) {
      return Span.of(spinnerFrame, Tone.ACCENT);
    }
    if (!mark.onLivePath()) {
      return Span.of("○", Tone.MUTED);
    }
    if (mark.status() == TurnStatus.FAILED) {
      return Span.of("●", Tone.ERROR);
    }
    if (mark.number() == tab.live()) {
      return new Span(mark.hasEdits() ? "◆" : "◇", Style.of(mark.hasEdits() ? Tone.ACCENT : Tone.MUTED).bolded());
    }
    return mark.hasEdits() ? Span.of("●", Tone.ACCENT) : Span.of("•", Tone.MUTED);
  }
}
