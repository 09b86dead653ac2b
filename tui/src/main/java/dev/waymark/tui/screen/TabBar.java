package dev.waymark.tui.screen;

import dev.waymark.tui.text.CellWidth;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import java.util.ArrayList;
import java.util.List;

/**
 * The row of tabs on top: number, title, a spinner while it runs, a {@code ?} standing out while a
 * tool call waits for the user's approval there, a mark when it finished unseen.
 */
public final class TabBar {
  /** The mark of a tab waiting for approval: not the spinner, since nothing runs until the user answers. */
  public static final String AWAITING = "?";

  private TabBar() {}

  /** What the bar shows of one tab. */
  public record Label(String title, boolean active, boolean running, boolean unseenFinish, boolean awaitingApproval,
      String isolation) {
    public Label(String title, boolean active, boolean running, boolean unseenFinish) {
      this(title, active, running, unseenFinish, false);
    }

    public Label(String title, boolean active, boolean running, boolean unseenFinish, boolean awaitingApproval) {
      this(title, active, running, unseenFinish, awaitingApproval, "");
    }
  }

  public static Line render(List<Label> tabs, int width, String spinnerFrame) {
    if (tabs.isEmpty() || width <= 0) {
      return Line.EMPTY;
    }
    String brand = " waymark ";
    int room = width - brand.length();
    List<Span> spans = new ArrayList<>();
    int used = 0;
    for (int i = 0; i < tabs.size(); i++) {
      Label tab = tabs.get(i);
      String mark = tab.awaitingApproval() ? AWAITING : tab.running() ? spinnerFrame : tab.unseenFinish() ? "•" : " ";
      // an isolated tab shows ◇ and how many files its view changes, beside its number
      String number = (i + 1) + tab.isolation();
      String title = tab.title().isBlank() ? "new tab" : tab.title();
      // the tabs still to draw share what is left: a short title's spare room goes to those after it
      int each = Math.max(4, (room - used) / (tabs.size() - i));
      // besides the title: a space, the number, a space, a space, the mark, a space, and the space between tabs
      int titleRoom = Math.min(24, each - CellWidth.of(number) - 6);
      String text = " " + number + " " + (titleRoom > 1 ? CellWidth.truncate(title, titleRoom) + " " : "") + mark + " ";
      if (used + CellWidth.of(text) > Math.max(room, 0)) {
        text = " " + number + mark;
        if (used + CellWidth.of(text) > width) {
          break;
        }
      }
      Style style = tab.active() ? Style.of(Tone.ACCENT).reversed().bolded()
          : tab.awaitingApproval() ? Style.of(Tone.WARNING).reversed().bolded()
          : Style.of(tab.unseenFinish() ? Tone.WARNING : Tone.MUTED);
      spans.add(new Span(text, style));
      spans.add(Span.plain(" "));
      used += CellWidth.of(text) + 1;
    }
    int pad = width - used - brand.length();
    if (pad >= 0) {
      spans.add(Span.plain(" ".repeat(pad)));
      spans.add(Span.of(brand, Tone.MUTED));
    }
    return new Line(spans);
  }
}
