package dev.waymark.tui.screen;

import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The bottom row: the tab's state first (what the user must know now), then model, approval and tokens. */
public final class Footer {
  private Footer() {}

  public static Line render(TabState tab, String model, String approval, int width, Instant now, String spinnerFrame) {
    return render(tab, model, approval, width, now, spinnerFrame, List.of());
  }

  /** {@code waitingElsewhere}: the numbers of the other tabs where a tool call waits for approval, said first. */
  public static Line render(TabState tab, String model, String approval, int width, Instant now, String spinnerFrame,
      List<Integer> waitingElsewhere) {
    List<Span> spans = new ArrayList<>();
    if (!waitingElsewhere.isEmpty()) {
      String numbers = String.join(", ", waitingElsewhere.stream().map(String::valueOf).toList());
      spans.add(new Span(" ? " + (waitingElsewhere.size() == 1 ? "tab " + numbers + " awaits" : "tabs " + numbers + " await")
          + " approval ", Style.of(Tone.WARNING).reversed().bolded()));
    }
    if (tab.pendingApproval().isPresent()) {
      spans.add(new Span(" ? awaiting your approval ", Style.of(Tone.WARNING).bolded()));
    } else if (tab.running() && tab.waiting().isPresent()) {
      spans.add(new Span(" " + spinnerFrame + " " + tab.waiting().get(), Style.of(Tone.WARNING).bolded()));
      spans.add(Span.of(" · esc to interrupt ", Tone.MUTED));
    } else if (tab.running()) {
      long seconds = Duration.between(tab.runningSince().orElse(now), now).toSeconds();
      spans.add(Span.of(" " + spinnerFrame + " working " + elapsed(seconds), Tone.ACCENT));
      tab.viewed().ifPresent(n -> spans.add(new Span(" · viewing #" + n, Style.of(Tone.VIEWED).bolded())));
      spans.add(Span.of(" · esc/ctrl+c to interrupt ", Tone.MUTED));
    } else if (tab.viewed().isPresent()) {
      spans.add(new Span(" viewing #" + tab.viewed().get(), Style.of(Tone.VIEWED).bolded()));
      spans.add(Span.of(" · send to branch · ctrl+f/alt+→ forward ", Tone.MUTED));
    } else {
      spans.add(Span.of(" ready · #" + tab.live() + " ", Tone.MUTED));
    }
    spans.add(Span.of("│ ", Tone.MUTED));
    spans.add(Span.plain(model));
    spans.add(Span.of(" · ", Tone.MUTED));
    // the modes that change what runs unasked stand out: plan refuses edits, yolo asks nothing
    spans.add(approval.equals("plan") ? new Span(approval, Style.of(Tone.ACCENT).bolded())
        : approval.equals("yolo") ? new Span(approval, Style.of(Tone.WARNING).bolded()) : Span.of(approval, Tone.MUTED));
    if (tab.contextUsed().isPresent()) {
      var used = tab.contextUsed().get();
      String share = used.percent().isPresent() ? " (" + used.percent().getAsInt() + "%)" : "";
      int percent = used.percent().orElse(0);
      spans.add(Span.of(" · ctx " + (used.estimated() ? "~" : "") + tokens(used.tokens()) + share, percent >= 80
          ? Tone.WARNING : Tone.MUTED));
      spans.add(Span.of(" · out " + tokens(tab.outputTokens()), Tone.MUTED));
    } else {
      tab.lastUsage().ifPresent(u -> spans.add(Span.of(" · ctx " + tokens(u.inputTokens()) + " · out "
          + tokens(tab.outputTokens()), Tone.MUTED)));
    }
    spans.add(Span.of(" · F1 help", Tone.MUTED));
    return Wrap.truncate(new Line(spans), width);
  }

  static String elapsed(long seconds) {
    return seconds < 60 ? seconds + "s" : seconds / 60 + "m" + String.format("%02d", seconds % 60) + "s";
  }

  static String tokens(long n) {
    return n < 1000 ? String.valueOf(n) : String.format(Locale.ROOT, "%.1fk", n / 1000.0);
  }
}
