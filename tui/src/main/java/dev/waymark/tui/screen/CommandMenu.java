package dev.waymark.tui.screen;

import dev.waymark.tui.command.CommandCatalog;
import dev.waymark.tui.command.CommandEntry;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The list of commands that opens above the input while it holds a {@code /} and the start of a
 * command: the commands that match, each with what it does, one of them selected (↑ ↓), Tab
 * completing it into the input, Enter running it (or completing it when it needs an argument), Esc
 * closing the list until the input changes. It follows the input's text: nothing here edits it.
 */
public final class CommandMenu {
  /** How many commands show at once; the list scrolls to keep the selected one in sight. */
  public static final int MAX_ROWS = 8;

  private final CommandCatalog catalog;
  private String typed = "";
  private int selected;
  private String dismissed; // the input Esc closed the menu on; it opens again once the input changes

  public CommandMenu(CommandCatalog catalog) {
    this.catalog = catalog;
  }

  public CommandCatalog catalog() {
    return catalog;
  }

  /** The commands shown for the input {@code text}; empty when the menu is closed. */
  public List<CommandEntry> shown(String text) {
    if (!text.equals(typed)) {
      typed = text;
      selected = 0; // what was typed changed the list: its best match first
      if (text.startsWith("/")) {
        catalog.refresh(); // a command file written meanwhile is offered at once
      }
    }
    if (!text.startsWith("/") || text.startsWith("//") || text.contains("\n") || text.equals(dismissed)) {
      return List.of();
    }
    return catalog.matching(text);
  }

  public boolean isOpen(String text) {
    return !shown(text).isEmpty();
  }

  public void move(String text, int delta) {
    int size = shown(text).size();
    if (size > 0) {
      selected = Math.floorMod(selected + delta, size);
    }
  }

  public Optional<CommandEntry> selected(String text) {
    List<CommandEntry> list = shown(text);
    return list.isEmpty() ? Optional.empty() : Optional.of(list.get(Math.min(selected, list.size() - 1)));
  }

  /** Esc: closed until the input changes. */
  public void dismiss(String text) {
    dismissed = text;
  }

  /**
   * What Tab puts in the input: the selected command, and a space when it takes arguments or other
   * commands go on from it ({@code /checkpoint } then {@code undo}).
   */
  public String completion(CommandEntry entry) {
    String command = entry.command();
    boolean more = entry.takesArguments()
        || catalog.entries().stream().anyMatch(e -> e.command().startsWith(command + " "));
    return command + (more ? " " : "");
  }

  /** The menu's rows for {@code text}, at most {@code maxRows}: the commands, then a line of keys. */
  public List<Line> rows(String text, int width, int maxRows) {
    List<CommandEntry> list = shown(text);
    List<Line> rows = new ArrayList<>();
    if (list.isEmpty() || maxRows < 2) {
      return rows;
    }
    int page = Math.min(MAX_ROWS, maxRows - 1);
    int at = Math.min(selected, list.size() - 1);
    int top = Math.max(0, Math.min(at - page + 1, list.size() - page));
    top = Math.min(top, at);
    int usageWidth = 0;
    for (CommandEntry e : list) {
      usageWidth = Math.max(usageWidth, e.usage().length());
    }
    usageWidth = Math.min(usageWidth, Math.max(12, width / 2));
    for (int i = top; i < list.size() && rows.size() < page; i++) {
      CommandEntry e = list.get(i);
      boolean on = i == at;
      String usage = String.format("%-" + usageWidth + "s", e.usage());
      Line line = Line.of(new Span(on ? " ▸ " : "   ", Style.of(Tone.ACCENT)),
          new Span(usage, on ? Style.of(Tone.ACCENT).reversed() : Style.of(Tone.ACCENT)),
          Span.of("  " + e.description(), Tone.MUTED));
      rows.add(Wrap.truncate(line, width));
    }
    String more = list.size() > page ? " · " + list.size() + " commands" : "";
    rows.add(Wrap.truncate(Line.of(Span.of("   ↑↓ select · Tab complete · Enter run · Esc close" + more, Tone.MUTED)), width));
    return rows;
  }
}
