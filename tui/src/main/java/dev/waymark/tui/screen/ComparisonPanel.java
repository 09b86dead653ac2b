package dev.waymark.tui.screen;

import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.ComparisonView;
import dev.waymark.tui.text.DiffLines;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Tone;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The diff of two checkpoints as a panel walked by file and hunk: {@code n}/{@code p} the next and
 * previous hunk, {@code N}/{@code P} the next and previous file, {@code a}/{@code b} take the
 * selected hunk as side a or b holds it, {@code A}/{@code B} the whole file. Taking is asked of
 * {@code take}, which asks the user before anything changes; the panel itself changes nothing.
 */
public final class ComparisonPanel implements Overlay.Keys {
  /** What the user asked to take: one file ({@code hunk} -1) or one hunk, as side b ({@code toSide}) or a holds it. */
  public record Take(String path, int hunk, boolean toSide) {}

  public static final String KEYS = "n/p hunk · N/P file · a/b take hunk · A/B take file · q close";

  private final ComparisonView view;
  private final Consumer<Take> take;
  private final Function<CheckpointRef, String> named;
  private int file;
  private int hunk; // -1: the file's header (a file with no hunks)

  public ComparisonPanel(ComparisonView view, Consumer<Take> take) {
    this(view, CheckpointRef::toString, take);
  }

  /** {@code named}: how a side is said in the title (another tab by its place and title, not its id). */
  public ComparisonPanel(ComparisonView view, Function<CheckpointRef, String> named, Consumer<Take> take) {
    this.view = view;
    this.named = named;
    this.take = take;
    this.hunk = view.files().isEmpty() || view.files().get(0).hunks().isEmpty() ? -1 : 0;
  }

  /** The panel as an overlay: its title says what is compared and the keys. */
  public Overlay overlay() {
    int n = view.files().size();
    return new Overlay("Diff " + named.apply(view.from()) + " → " + named.apply(view.to()) + " · " + n + (n == 1 ? " file" : " files") + " +"
        + view.added() + " −" + view.removed() + " · " + KEYS, this::rows, this);
  }

  public int file() {
    return file;
  }

  public int hunk() {
    return hunk;
  }

  /** Every row: each file's header, then its hunks, the selected one marked in the gutter. */
  List<Line> rows(int width) {
    List<Line> rows = new ArrayList<>();
    for (int f = 0; f < view.files().size(); f++) {
      ComparisonView.FileComparison c = view.files().get(f);
      boolean here = f == file;
      for (Line line : DiffLines.render(c.header(), width - 2)) {
        rows.add(line.prefixed(here && hunk < 0 ? "▌ " : "  "));
      }
      for (int h = 0; h < c.hunks().size(); h++) {
        boolean selected = here && h == hunk;
        for (Line line : DiffLines.render(c.hunks().get(h), width - 2)) {
          rows.add(selected ? new Line(prepend(Span.of("▌ ", Tone.ACCENT), line)) : line.prefixed("  "));
        }
      }
    }
    return rows;
  }

  private static List<Span> prepend(Span first, Line line) {
    List<Span> spans = new ArrayList<>(line.spans().size() + 1);
    spans.add(first);
    spans.addAll(line.spans());
    return spans;
  }

  /** The row the selected hunk (or file) starts at, at {@code width}. */
  int selectedRow(int width) {
    int row = 0;
    for (int f = 0; f < view.files().size(); f++) {
      ComparisonView.FileComparison c = view.files().get(f);
      int header = DiffLines.render(c.header(), width - 2).size();
      if (f == file && hunk < 0) {
        return row;
      }
      row += header;
      for (int h = 0; h < c.hunks().size(); h++) {
        if (f == file && h == hunk) {
          return row;
        }
        row += DiffLines.render(c.hunks().get(h), width - 2).size();
      }
    }
    return row;
  }

  @Override
  public boolean typed(String text, Overlay overlay, int height) {
    if (view.files().isEmpty()) {
      return false;
    }
    ComparisonView.FileComparison selected = view.files().get(file);
    switch (text) {
      case "n" -> moveHunk(1);
      case "p" -> moveHunk(-1);
      case "N" -> moveFile(1);
      case "P" -> moveFile(-1);
      case "a", "b" -> {
        if (hunk >= 0) {
          take.accept(new Take(selected.path(), hunk, text.equals("b")));
        }
        return true;
      }
      case "A", "B" -> {
        take.accept(new Take(selected.path(), -1, text.equals("B")));
        return true;
      }
      default -> {
        return false;
      }
    }
    int width = overlay.width();
    overlay.relayout();
    overlay.rows(width); // the marker moved: lay out again before scrolling to it
    overlay.scrollTo(Math.max(0, selectedRow(width) - 1), height);
    return true;
  }

  /** Steps through every hunk in order, a file without hunks being one stop; stays at either end. */
  private void moveHunk(int by) {
    List<int[]> stops = new ArrayList<>();
    for (int f = 0; f < view.files().size(); f++) {
      int count = view.files().get(f).hunks().size();
      if (count == 0) {
        stops.add(new int[] {f, -1});
      }
      for (int h = 0; h < count; h++) {
        stops.add(new int[] {f, h});
      }
    }
    int at = 0;
    for (int i = 0; i < stops.size(); i++) {
      if (stops.get(i)[0] == file && stops.get(i)[1] == hunk) {
        at = i;
      }
    }
    int[] next = stops.get(Math.max(0, Math.min(stops.size() - 1, at + by)));
    file = next[0];
    hunk = next[1];
  }

  private void moveFile(int by) {
    int f = file + by;
    if (f >= 0 && f < view.files().size()) {
      file = f;
      hunk = view.files().get(f).hunks().isEmpty() ? -1 : 0;
    }
  }
}
