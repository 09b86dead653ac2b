package dev.waymark.tui.command;

import dev.waymark.core.agent.Command;
import dev.waymark.core.checkpoint.RestoreMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The commands typed after {@code /}: parsed into what the UI or the tab must do, or a one-line error. */
public final class SlashCommand {
  /** Every command with its arguments, for completion and /help. */
  public static final List<String> USAGE = List.of(
      "/checkpoint", "/checkpoint N", "/checkpoint live", "/checkpoint undo [N]", "/checkpoint redo",
      "/checkpoint save [name]", "/checkpoint goto N", "/checkpoint diff [N]",
      "/checkpoint restore N [files|conversation|both]", "/session save [name]", "/session load ID|NAME",
      "/session list", "/session delete ID", "/help", "/quit");

  private static final List<String> WORDS = List.of(
      "/checkpoint", "/checkpoint list", "/checkpoint live", "/checkpoint undo", "/checkpoint redo",
      "/checkpoint save", "/checkpoint goto", "/checkpoint diff", "/checkpoint restore", "/session save",
      "/session load", "/session list", "/session delete", "/help", "/quit");

  private SlashCommand() {}

  /** What a command line asks for. */
  public sealed interface Parsed {
    /** Commands for the active tab, in order. {@code keepsDraft}: send the input's draft first. */
    record ForTab(List<Command> commands, boolean keepsDraft) implements Parsed {}

    record Help() implements Parsed {}

    record Quit() implements Parsed {}

    record Invalid(String message) implements Parsed {}

    /** A /session command: {@code verb} save, load, list or delete; {@code argument} may be null. */
    record Session(String verb, String argument) implements Parsed {}
  }

  public static boolean isCommand(String text) {
    return text.startsWith("/") && !text.startsWith("//");
  }

  /**
   * Parses one command line.
   *
   * @param current the checkpoint a bare {@code diff} refers to: the viewed one, else live
   * @param defaultSaveName the name a bare {@code save} uses
   */
  public static Parsed parse(String text, int current, String defaultSaveName) {
    String[] words = text.strip().split("\\s+");
    String head = words[0].toLowerCase(Locale.ROOT);
    switch (head) {
      case "/help":
        return words.length == 1 ? new Parsed.Help() : invalid("/help takes no arguments.");
      case "/quit":
      case "/exit":
        return words.length == 1 ? new Parsed.Quit() : invalid("/quit takes no arguments.");
      case "/checkpoint":
      case "/cp":
        return checkpoint(words, current, defaultSaveName);
      case "/session":
        return session(words);
      default:
        return invalid("Unknown command " + words[0] + ". Type /help for the list.");
    }
  }

  private static Parsed checkpoint(String[] words, int current, String defaultSaveName) {
    if (words.length == 1) {
      return tab(new Command.List());
    }
    String sub = words[1].toLowerCase(Locale.ROOT);
    int args = words.length - 2;
    try {
      switch (sub) {
        case "list":
          return args == 0 ? tab(new Command.List()) : invalid("Usage: /checkpoint list");
        case "live":
          return args == 0 ? tab(Command.View.live()) : invalid("Usage: /checkpoint live");
        case "undo":
          if (args > 1) {
            return invalid("Usage: /checkpoint undo [N]");
          }
          return new Parsed.ForTab(List.of(args == 0 ? Command.Undo.one() : new Command.Undo(number(words[2]))), true);
        case "redo":
          return args == 0 ? new Parsed.ForTab(List.of(new Command.Redo()), true) : invalid("Usage: /checkpoint redo");
        case "save":
          return args <= 1 ? tab(new Command.Save(args == 0 ? defaultSaveName : words[2]))
              : invalid("Usage: /checkpoint save [name] (one word: letters, digits, '.', '-', '_')");
        case "goto":
          return args == 1 ? new Parsed.ForTab(List.of(new Command.GoTo(number(words[2]))), true)
              : invalid("Usage: /checkpoint goto N");
        case "diff":
          return args <= 1 ? tab(new Command.Diff(args == 0 ? current : number(words[2])))
              : invalid("Usage: /checkpoint diff [N]");
        case "restore":
          if (args < 1 || args > 2) {
            return invalid("Usage: /checkpoint restore N [files|conversation|both]");
          }
          RestoreMode mode = args == 2 ? mode(words[3]) : RestoreMode.BOTH;
          return new Parsed.ForTab(List.of(new Command.Restore(number(words[2]), mode, false)), true);
        default:
          if (args == 0 && sub.matches("#?\\d+")) {
            return tab(Command.View.at(number(sub)));
          }
          return invalid("Unknown /checkpoint command \"" + words[1] + "\". Try: list, N, live, undo, redo, save, goto, diff, restore.");
      }
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  private static Parsed session(String[] words) {
    String verb = words.length > 1 ? words[1].toLowerCase(Locale.ROOT) : "list";
    int args = words.length - 2;
    return switch (verb) {
      case "list" -> args <= 0 ? new Parsed.Session("list", null) : invalid("Usage: /session list");
      case "save" -> args <= 1 ? new Parsed.Session("save", args == 1 ? words[2] : null) : invalid("Usage: /session save [name]");
      case "load" -> args == 1 ? new Parsed.Session("load", words[2]) : invalid("Usage: /session load ID|NAME");
      case "delete" -> args == 1 ? new Parsed.Session("delete", words[2]) : invalid("Usage: /session delete ID");
      default -> invalid("Unknown /session command \"" + words[1] + "\". Try: save, load, list, delete.");
    };
  }

  private static int number(String word) {
    String digits = word.startsWith("#") ? word.substring(1) : word;
    if (!digits.matches("\\d{1,9}")) {
      throw new IllegalArgumentException("Not a checkpoint number: \"" + word + "\".");
    }
    return Integer.parseInt(digits);
  }

  private static RestoreMode mode(String word) {
    return switch (word.toLowerCase(Locale.ROOT)) {
      case "files" -> RestoreMode.FILES;
      case "conversation" -> RestoreMode.CONVERSATION;
      case "both" -> RestoreMode.BOTH;
      default -> throw new IllegalArgumentException("Restore what? \"" + word + "\" is not files, conversation or both.");
    };
  }

  private static Parsed tab(Command command) {
    return new Parsed.ForTab(List.of(command), false);
  }

  private static Parsed invalid(String message) {
    return new Parsed.Invalid(message);
  }

  /** The commands that start with what was typed; Tab completes to their longest common prefix. */
  public static List<String> completions(String typed) {
    String lower = typed.toLowerCase(Locale.ROOT);
    List<String> found = new ArrayList<>();
    for (String word : WORDS) {
      if (word.startsWith(lower) && !word.equals(lower)) {
        found.add(word);
      }
    }
    return found;
  }

  /** What Tab turns {@code typed} into: the longest common prefix of the completions, plus a space when unique. */
  public static String complete(String typed) {
    List<String> found = completions(typed);
    if (found.isEmpty()) {
      return typed;
    }
    if (found.size() == 1) {
      return found.get(0) + " ";
    }
    String prefix = found.get(0);
    for (String word : found) {
      int i = 0;
      while (i < prefix.length() && i < word.length() && prefix.charAt(i) == word.charAt(i)) {
        i++;
      }
      prefix = prefix.substring(0, i);
    }
    return prefix.length() > typed.length() ? prefix : typed;
  }
}
