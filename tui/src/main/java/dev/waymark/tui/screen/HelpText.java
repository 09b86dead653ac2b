package dev.waymark.tui.screen;

import dev.waymark.tui.command.CommandCatalog;
import dev.waymark.tui.command.CommandEntry;
import dev.waymark.tui.terminal.Action;
import dev.waymark.tui.terminal.KeyChord;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Span;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import dev.waymark.tui.text.Wrap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The /help overlay: the keys as bound now, and the commands. */
public final class HelpText {
  private HelpText() {}

  /**
   * What each bound action does and its keys, in the order of {@link Action}; the nine tab keys as
   * one entry; {@code editing}: only the input's editing keys, else all the others.
   */
  public static Map<String, String> keys(KeyMap bindings, boolean editing) {
    Map<String, String> keys = new LinkedHashMap<>();
    List<String> tabKeys = new ArrayList<>();
    for (Action action : Action.values()) {
      if (action.edits() != editing) {
        continue;
      }
      List<KeyChord> chords = bindings.chordsFor(action);
      if (action.name().startsWith("TAB_")) {
        chords.stream().findFirst().ifPresent(c -> tabKeys.add(c.toString()));
        if (action == Action.TAB_9 && !tabKeys.isEmpty()) {
          keys.put("go to tab 1…9", tabKeys.size() > 2
              ? tabKeys.get(0) + " … " + tabKeys.get(tabKeys.size() - 1) : String.join(", ", tabKeys));
        }
      } else if (!chords.isEmpty()) {
        keys.put(action.description(), String.join(", ", chords.stream().map(KeyChord::toString).toList()));
      }
    }
    return keys;
  }

  /** The help for the keys as bound in {@code bindings}: keys, commands, then the input's editing keys. */
  public static List<Line> render(KeyMap bindings, int width) {
    return render(bindings, CommandCatalog.BUILT_IN, width);
  }

  /** The help with {@code commands}: the built-in ones and those other features added. */
  public static List<Line> render(KeyMap bindings, List<CommandEntry> commands, int width) {
    List<Line> rows = render(keys(bindings, false), commands, width);
    rows.add(Line.EMPTY);
    rows.add(Line.of("Editing the input", Style.of(Tone.HEADING).bolded()));
    keyRows(keys(bindings, true), width, rows);
    rows.add(Line.EMPTY);
    rows.add(Line.of(Span.of("Esc or q closes this.", Tone.MUTED)));
    return rows;
  }

  /** {@code keys}: what each action does, and the chords bound to it (in order of the help); then the commands. */
  static List<Line> render(Map<String, String> keys, int width) {
    return render(keys, CommandCatalog.BUILT_IN, width);
  }

  static List<Line> render(Map<String, String> keys, List<CommandEntry> commands, int width) {
    List<Line> rows = new ArrayList<>();
    rows.add(Line.of("Keys", Style.of(Tone.HEADING).bolded()));
    keyRows(keys, width, rows);
    rows.add(Line.EMPTY);
    rows.add(Line.of("Commands", Style.of(Tone.HEADING).bolded()));
    for (CommandEntry command : commands) {
      rows.addAll(Wrap.wrap(Line.of(Span.of("  " + command.usage(), Tone.ACCENT), Span.of("  " + command.description(),
          Tone.MUTED)), width, Line.plain("    ")));
    }
    rows.add(Line.EMPTY);
    rows.add(Line.of("Approvals", Style.of(Tone.HEADING).bolded()));
    rows.addAll(Wrap.wrap(Line.of(Span.of("A tool call waiting for you is answered only with ↑ ↓ Enter and Esc, "
        + "while the input is empty: letters typed then go to the input (a message, Enter steers), never to the "
        + "approval. Allow once; allow a rule from now on (a shell command's prefix such as run_shell(npm test:*), "
        + "never a bare rm or sh), kept for this session or saved to the project's or your settings after a second "
        + "Enter; or deny with a line for the model. Esc stops the turn there. A tab waiting shows ? in the tab bar, "
        + "other tabs' footers count it, and the bell rings once (\"bell\": false in settings turns it off).",
        Tone.MUTED)), width));
    rows.add(Line.EMPTY);
    rows.addAll(Wrap.wrap(Line.of(Span.of("!command runs a shell command yourself, unasked, as the agent's run_shell would "
        + "(sandboxed where commands are): a checkpoint of its own, its output shown and given to the model with your next "
        + "prompt. A long paste is folded into [Pasted text #1 +N lines] and sent whole.", Tone.MUTED)), width));
    rows.add(Line.EMPTY);
    rows.addAll(Wrap.wrap(Line.of(Span.of("Every prompt makes a checkpoint. Browsing never touches your files; "
        + "sending a message while viewing an earlier checkpoint branches from it. Undo never deletes anything: "
        + "/checkpoint goto N reaches any checkpoint again.", Tone.MUTED)), width));
    rows.add(Line.EMPTY);
    rows.addAll(Wrap.wrap(Line.of(Span.of("Modes (Shift+Tab or /mode): plan runs reading tools and sandboxed commands on the "
        + "read-only project and asks for a plan, then whether to carry it out; ask asks before edits and commands; auto-edit runs edits and asks before "
        + "commands; auto runs edits and sandboxed commands and asks before a command outside the sandbox; yolo runs everything (set only by /mode yolo or --approval yolo).", Tone.MUTED)), width));
    return rows;
  }

  private static void keyRows(Map<String, String> keys, int width, List<Line> rows) {
    for (var entry : keys.entrySet()) {
      rows.addAll(Wrap.wrap(Line.of(Span.of(String.format("  %-22s", entry.getValue()), Tone.ACCENT),
          Span.plain(entry.getKey())), width, Line.plain(" ".repeat(Math.min(24, width / 2)))));
    }
  }

  static String explain(String usage) {
    return CommandCatalog.BUILT_IN.stream().filter(e -> e.usage().equals(usage)).map(CommandEntry::description)
        .findFirst().orElse("");
  }
}
