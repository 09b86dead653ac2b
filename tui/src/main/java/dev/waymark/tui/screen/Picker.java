package dev.waymark.tui.screen;

import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * A list drawn over the chat to choose one entry from with ↑ ↓ and Enter (the /rewind list, /model).
 * A searchable one ({@code /resume}'s) keeps the entries that hold every word typed, as it is typed;
 * a word typed on narrows what is left rather than the whole list again.
 */
public final class Picker {
  /** One entry: what it shows, and the value Enter gives back. */
  public record Choice(String label, String detail, int value) {}

  private final String title;
  private final List<Choice> choices;
  private final Consumer<Choice> onChoose;
  /** Per entry, the text typing searches (lower case); null for a list that is not searched. */
  private final List<String> searched;
  private String query = "";
  private List<Integer> shown;
  private long examined;
  private int selected;
  private int top;

  /** {@code onChoose} runs with the entry Enter picks, after the list has closed. */
  public Picker(String title, List<Choice> choices, int selected, Consumer<Choice> onChoose) {
    this(title, choices, null, selected, onChoose);
  }

  private Picker(String title, List<Choice> choices, List<String> searched, int selected, Consumer<Choice> onChoose) {
    if (choices.isEmpty()) {
      throw new IllegalArgumentException("nothing to pick from");
    }
    this.title = title;
    this.choices = List.copyOf(choices);
    this.searched = searched == null ? null : searched.stream().map(t -> t.toLowerCase(Locale.ROOT)).toList();
    this.shown = IntStream.range(0, choices.size()).boxed().toList();
    this.selected = Math.max(0, Math.min(choices.size() - 1, selected));
    this.onChoose = onChoose;
  }

  /** A list typing filters: {@code searched} holds, per choice, the text a typed word is looked for in. */
  public static Picker searchable(String title, List<Choice> choices, List<String> searched, Consumer<Choice> onChoose) {
    if (searched.size() != choices.size()) {
      throw new IllegalArgumentException("one searched text per choice");
    }
    return new Picker(title, choices, searched, 0, onChoose);
  }

  public boolean searchable() {
    return searched != null;
  }

  /** What has been typed to filter the list. */
  public String query() {
    return query;
  }

  /** How many entries are shown now, of {@link #size()}. */
  public int matching() {
    return shown.size();
  }

  public int size() {
    return choices.size();
  }

  /** How many entries filtering has looked at so far: what typing costs, for the tests that count it. */
  public long examined() {
    return examined;
  }

  /** More of the filter, as typed. */
  public void type(String text) {
    if (searchable()) {
      filter(query + text.replace('\n', ' '));
    }
  }

  /** The filter's last character taken back. */
  public void deleteBack() {
    if (searchable() && !query.isEmpty()) {
      filter(query.substring(0, query.offsetByCodePoints(query.length(), -1)));
    }
  }

  private void filter(String typed) {
    String before = query;
    List<String> words = List.of(typed.toLowerCase(Locale.ROOT).strip().split("\\s+"));
    // typed on: only what matched before can match now
    List<Integer> from = typed.startsWith(before) ? shown : IntStream.range(0, choices.size()).boxed().toList();
    List<Integer> kept = new ArrayList<>();
    for (int i : from) {
      examined++;
      String text = searched.get(i);
      if (words.stream().allMatch(text::contains)) {
        kept.add(i);
      }
    }
    query = typed;
    shown = kept;
    selected = 0;
    top = 0;
  }

  /** Does what picking the selected entry does; nothing when no entry matches the filter. */
  public void choose() {
    if (!shown.isEmpty()) {
      onChoose.accept(chosen());
    }
  }

  public String title() {
    return title;
  }

  public void move(int delta) {
    selected = Math.max(0, Math.min(shown.size() - 1, selected + delta));
  }

  /** The selected entry; null when none matches the filter. */
  public Choice chosen() {
    return shown.isEmpty() ? null : choices.get(shown.get(selected));
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
    if (shown.isEmpty()) {
      rows.add(Wrap.truncate(Line.of(Span.of("  Nothing matches \"" + query.strip() + "\": Backspace to take back, "
          + "Esc to close.", Tone.MUTED)), width));
    }
    for (int i = top; i < shown.size() && rows.size() < page; i++) {
      Choice c = choices.get(shown.get(i));
      boolean on = i == selected;
      Line line = Line.of(new Span(on ? "▸ " : "  ", Style.of(Tone.ACCENT)),
          new Span(c.label(), on ? Style.PLAIN.reversed() : Style.PLAIN), Span.of("  " + c.detail(), Tone.MUTED));
      rows.add(Wrap.truncate(line, width));
    }
    return rows;
  }
}
