package dev.waymark.tui.screen;

import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** A list drawn over the chat to choose one entry from with ↑ ↓ and Enter (the /rewind list, /model). */
public final class Picker {
  /** One entry: what it shows, and the value Enter gives back. */
  public record Choice(String label, String detail, int value) {}

  private final String title;
  private final List<Choice> choices;
  private final Consumer<Choice> onChoose;
  private int selected;
  private int top;

  /** {@code onChoose} runs with the entry Enter picks, after the list has closed. */
  public Picker(String title, List<Choice> choices, int selected, Consumer<Choice> onChoose) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("nothing to pick from");
    }
    this.title = title;
    this.choices = List.copyOf(choices);
    this.selected = Math.max(0, Math.min(choices.size() - 1, selected));
    this.onChoose = onChoose;
  }

  /** Does what picking the selected entry does. */
  public void choose() {
    onChoose.accept(chosen());
  }

  public String title() {
    return title;
  }

  public void move(int delta) {
    selected = Math.max(0, Math.min(choices.size() - 1, selected + delta));
  }

  public Choice chosen() {
    return choices.get(selected);
  }

  /** The rows for a viewport of {@code height} rows, scrolled so the selected entry shows. */
  public List<Line> rows(int width, int height) {
    int page = Math.max(1, height);
    if (selected < top) {
      top = selected;
    } else if (selected >= top + page) {
      top = selected - page + 1;
    }
    List<Line> rows = new ArrayList<>();
    for (int i = top; i < choices.size() && rows.size() < page; i++) {
      Choice c = choices.get(i);
      boolean on = i == selected;
      Line line = Line.of(new Span(on ? "▸ " : "  ", Style.of(Tone.ACCENT)),
          new Span(c.label(), on ? Style.PLAIN.reversed() : Style.PLAIN), Span.of("  " + c.detail(), Tone.MUTED));
      rows.add(Wrap.truncate(line, width));
    }
    return rows;
  }
}
