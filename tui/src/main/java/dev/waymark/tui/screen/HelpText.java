package dev.waymark.tui.screen;

import dev.waymark.core.context.CustomCommands;
import dev.waymark.tui.command.SlashCommand;
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
    return render(bindings, List.of(), width);
  }

  /** {@link #render(KeyMap, int)}, with the user's own commands after the built-in ones. */
  public static List<Line> render(KeyMap bindings, List<CustomCommands.Entry> custom, int width) {
    List<Line> rows = render(keys(bindings, false), width);
    if (!custom.isEmpty()) {
      rows.add(Line.EMPTY);
      rows.add(Line.of("Your commands", Style.of(Tone.HEADING).bolded()));
      for (CustomCommands.Entry entry : custom) {
        rows.addAll(Wrap.wrap(Line.of(Span.of("  /" + entry.name() + " [arguments]", Tone.ACCENT),
            Span.of("  " + entry.description(), Tone.MUTED)), width, Line.plain("    ")));
      }
    }
    rows.add(Line.EMPTY);
    rows.add(Line.of("Editing the input", Style.of(Tone.HEADING).bolded()));
    keyRows(keys(bindings, true), width, rows);
    rows.add(Line.EMPTY);
    rows.add(Line.of(Span.of("Esc or q closes this.", Tone.MUTED)));
    return rows;
  }

  /** {@code keys}: what each action does, and the chords bound to it (in order of the help); then the commands. */
  static List<Line> render(Map<String, String> keys, int width) {
    List<Line> rows = new ArrayList<>();
    rows.add(Line.of("Keys", Style.of(Tone.HEADING).bolded()));
    keyRows(keys, width, rows);
    rows.add(Line.EMPTY);
    rows.add(Line.of("Commands", Style.of(Tone.HEADING).bolded()));
    for (String usage : SlashCommand.USAGE) {
      rows.addAll(Wrap.wrap(Line.of(Span.of("  " + usage, Tone.ACCENT), Span.of("  " + explain(usage), Tone.MUTED)),
          width, Line.plain("    ")));
    }
    rows.add(Line.EMPTY);
    rows.addAll(Wrap.wrap(Line.of(Span.of("Every prompt makes a checkpoint. Browsing never touches your files; "
        + "sending a message while viewing an earlier checkpoint branches from it. Undo never deletes anything: "
        + "/checkpoint goto N reaches any checkpoint again.", Tone.MUTED)), width));
    return rows;
  }

  private static void keyRows(Map<String, String> keys, int width, List<Line> rows) {
    for (var entry : keys.entrySet()) {
      rows.addAll(Wrap.wrap(Line.of(Span.of(String.format("  %-22s", entry.getValue()), Tone.ACCENT),
          Span.plain(entry.getKey())), width, Line.plain(" ".repeat(Math.min(24, width / 2)))));
    }
  }

  static String explain(String usage) {
    return switch (usage) {
      case "/checkpoint" -> "the checkpoints as a tree: branches, undone or abandoned ones, named saves";
      case "/checkpoint N" -> "view #N (read-only; nothing on disk changes)";
      case "/checkpoint live" -> "stop viewing, back to live";
      case "/checkpoint undo [N] [--force]" -> "undo the last checkpoint (or back to #N): files and conversation; "
          + "--force overwrites later edits that clash (what they held is kept under a rescued tag)";
      case "/checkpoint redo [--force]" -> "re-apply the last undone checkpoint";
      case "/checkpoint save [name]" -> "keep a named tag of the live state";
      case "/checkpoint goto N|NAME [--force]" -> "make #N (or the save NAME) live, even one undone or on another branch";
      case "/checkpoint diff [N]" -> "how the files on disk differ from #N";
      case "/checkpoint restore N [files|conversation|both] [--force]" -> "restore only files, only conversation, or both";
      case "/session save [name]" -> "save this session now (it is also saved after every checkpoint)";
      case "/session load ID|NAME" -> "open a saved session of this project";
      case "/session list" -> "the saved sessions of this project";
      case "/session delete ID" -> "delete a saved session and its checkpoints' tags";
      case "/tab" -> "the tabs closed in this session";
      case "/tab reopen [N]" -> "reopen the last closed tab (or the N-th /tab lists)";
      case "/undo [N]" -> "short for /checkpoint undo [N]";
      case "/redo" -> "short for /checkpoint redo";
      case "/rewind" -> "pick an earlier prompt to go back to before it (or Esc Esc on an idle, empty input)";
      case "/diff [N]" -> "short for /checkpoint diff [N]";
      case "/init" -> "ask the agent to write a starting AGENTS.md for the project (a turn you can undo)";
      case "/help" -> "this help";
      case "/quit" -> "leave Waymark";
      default -> "";
    };
  }
}
