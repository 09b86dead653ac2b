package dev.waymark.tui.command;

import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.context.InstructionFiles;
import dev.waymark.core.protocol.CheckpointRef;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.RestoreScope;
import dev.waymark.core.tool.ApprovalMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;

/** The commands typed after {@code /}: parsed into what the UI or the tab must do, or a one-line error. */
public final class SlashCommand {
  /** Every built-in command with its arguments, for completion and /help. */
  public static final List<String> USAGE = CommandCatalog.BUILT_IN.stream().map(CommandEntry::usage).toList();

  private static final List<String> WORDS = List.of(
      "/checkpoint", "/checkpoint list", "/checkpoint live", "/checkpoint undo", "/checkpoint redo",
      "/checkpoint save", "/checkpoint goto", "/checkpoint rescued", "/checkpoint diff", "/checkpoint restore", "/checkpoint revert", "/session save",
      "/session load", "/session list", "/session delete", "/tab", "/tab reopen", "/tab isolated", "/land", "/discard", "/undo", "/redo", "/revert", "/rewind", "/diff", "/export",
      "/copy", "/export-chat", "/resume",
      "/output", "/clear", "/compact", "/init", "/reasoning", "/mode", "/mode plan", "/mode ask", "/mode auto-edit", "/mode auto", "/mode yolo", "/model",
      "/status", "/cost", "/permissions", "/permissions remove", "/mcp", "/skills", "/hooks", "/bisect", "/help", "/quit");

  private static final CommandCatalog BUILT_IN = new CommandCatalog();

  private SlashCommand() {}

  /** What a command line asks for. */
  public sealed interface Parsed {
    /** Commands for the active tab, in order. {@code keepsDraft}: send the input's draft first. */
    record ForTab(List<Command> commands, boolean keepsDraft) implements Parsed {}

    record Help() implements Parsed {}

    record Quit() implements Parsed {}

    /** {@code /tab}: list the closed tabs; {@code /tab reopen [N]}: reopen one ({@code number} -1: the last closed). */
    record TabCommand(boolean reopen, int number) implements Parsed {}

    /** {@code /tab isolated}: a new tab that works on a view of the project of its own until it lands. */
    record OpenIsolated() implements Parsed {}

    /** Pick a prompt of the live path to go back to before it. */
    record Rewind() implements Parsed {}

    /** The whole output of the tool calls of {@code checkpoint}, in a panel. */
    record Output(int checkpoint) implements Parsed {}

    /** Show or fold the reasoning of the tab's reasoning model. */
    record ToggleReasoning() implements Parsed {}

    /** {@code /mcp}: the MCP servers with their state, tools, prompts, resources and last error. */
    record McpServers() implements Parsed {}

    /** {@code /skills}: the Agent Skills the model may load, and the folders not loaded with why. */
    record Skills() implements Parsed {}

    /** {@code /hooks}: the hooks configured, each with where it was configured. */
    record Hooks() implements Parsed {}

    record Invalid(String message) implements Parsed {}

    /** {@code /permissions}: list the allow and deny rules; with {@code remove} > 0, take out the one so numbered. */
    record PermissionsCommand(int remove) implements Parsed {}
    /** {@code /mode}: show the tab's mode ({@code name} null) or set it. */
    record Mode(String name) implements Parsed {}

    /** {@code /model}: pick the tab's model from a list ({@code name} null) or set it. */
    record Model(String name) implements Parsed {}

    /** {@code /status}: provider, model, server, mode, sandbox, tokens and cost. */
    record Status() implements Parsed {}

    /**
     * A prompt a command stands for ({@code /init}, a custom command): {@code text} is sent, and
     * the chat, {@code /rewind} and the titles show the command as {@code typed}.
     */
    record Prompt(String text, String typed) implements Parsed {}

    /** {@code /bisect}: the first checkpoint from {@code good} to {@code bad} where {@code command} fails. */
    record Bisect(String command, OptionalInt good, OptionalInt bad) implements Parsed {}
    /** {@code /checkpoint rescued [NAME]}: list the tab's rescued versions ({@code name} null), or show one. */
    record Rescued(String name) implements Parsed {}

    /** A /session command: {@code verb} save, load, fork, list or delete; {@code argument} may be null. */
    record Session(String verb, String argument) implements Parsed {}

    /** {@code /resume}: the saved sessions to pick one from, filtered as the user types. */
    record Resume() implements Parsed {}

    /** {@code /copy [N]}: the last answer ({@code block} 0), or its code block {@code block}, to the clipboard. */
    record Copy(int block) implements Parsed {}

    /** {@code /export-chat FILE [--force]}: the tab's conversation as Markdown; {@code force}: over a file there. */
    record ExportChat(String file, boolean force) implements Parsed {}
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
    return parse(text, current, defaultSaveName, BUILT_IN, CustomCommands.NONE);
  }

  /** {@link #parse(String, int, String)}, where a name no built-in command has may be one of {@code custom}. */
  public static Parsed parse(String text, int current, String defaultSaveName, CustomCommands custom) {
    return parse(text, current, defaultSaveName, BUILT_IN, custom);
  }

  /**
   * Parses one command line; a name no built-in command has may be one of {@code custom}, and a
   * mistyped command is answered with the nearest one in {@code catalog}.
   */
  public static Parsed parse(String text, int current, String defaultSaveName, CommandCatalog catalog,
      CustomCommands custom) {
    String[] words = text.strip().split("\\s+");
    String head = words[0].toLowerCase(Locale.ROOT);
    switch (head) {
      case "/help":
        return words.length == 1 ? new Parsed.Help() : invalid("/help takes no arguments.");
      case "/compact":
        return words.length == 1 ? new Parsed.ForTab(List.of(new Command.Compact()), false)
            : invalid("/compact takes no arguments.");
      case "/clear":
        // the conversation of #0 as a new checkpoint: files stay, the tree keeps every turn, undo brings it all back
        return words.length == 1 ? new Parsed.ForTab(List.of(new Command.Restore(0, RestoreScope.CONVERSATION, false)), false)
            : invalid("/clear takes no arguments.");
      case "/mcp":
        return words.length == 1 ? new Parsed.McpServers() : invalid("/mcp takes no arguments.");
      case "/skills":
        return words.length == 1 ? new Parsed.Skills() : invalid("/skills takes no arguments.");
      case "/hooks":
        return words.length == 1 ? new Parsed.Hooks() : invalid("/hooks takes no arguments.");
      case "/reasoning":
        return words.length == 1 ? new Parsed.ToggleReasoning() : invalid("/reasoning takes no arguments.");
      case "/quit":
      case "/exit":
        return words.length == 1 ? new Parsed.Quit() : invalid("/quit takes no arguments.");
      case "/checkpoint":
      case "/cp":
        return checkpoint(words, current, defaultSaveName);
      case "/session":
        return session(words);
      case "/undo":
      case "/redo":
      case "/revert":
      case "/diff":
        return alias(words, current, defaultSaveName);
      case "/tab":
        return tab(words);
      case "/export":
        return export(words);
      case "/resume":
        // with a name, what /session load does
        return words.length == 1 ? new Parsed.Resume()
            : words.length == 2 ? new Parsed.Session("load", words[1]) : invalid("Usage: /resume [ID|NAME]");
      case "/copy":
        return words.length == 1 ? new Parsed.Copy(0)
            : words.length == 2 && words[1].matches("0*[1-9]\\d{0,8}") ? new Parsed.Copy(Integer.parseInt(words[1]))
            : invalid("Usage: /copy [N]: the last answer, or its N-th code block (1 for the first).");
      case "/export-chat":
        return exportChat(text);
      case "/land":
        return words.length == 1 ? tab(new Command.Land(false))
            : words.length == 2 && words[1].equals("--keep-isolated") ? tab(new Command.Land(true))
            : invalid("Usage: /land [--keep-isolated]");
      case "/discard":
        return words.length == 1 ? tab(new Command.Discard()) : invalid("/discard takes no arguments.");
      case "/permissions":
        return permissions(words);
      case "/output":
        try {
          return words.length == 1 ? new Parsed.Output(current)
              : words.length == 2 ? new Parsed.Output(number(words[1])) : invalid("Usage: /output [N]");
        } catch (IllegalArgumentException e) {
          return invalid(e.getMessage());
        }
      case "/bisect":
        try {
          BisectLine bisect = BisectLine.parse(text);
          return new Parsed.Bisect(bisect.command(), bisect.good(), bisect.bad());
        } catch (IllegalArgumentException e) {
          return invalid(e.getMessage());
        }
      case "/rewind":
        return words.length == 1 ? new Parsed.Rewind() : invalid("/rewind takes no arguments: it lists the prompts to pick from.");
      case "/mode":
        if (words.length > 2) {
          return invalid("Usage: /mode [" + ApprovalMode.labels().replace(", ", "|").replace(" or ", "|") + "]");
        }
        if (words.length == 1) {
          return new Parsed.Mode(null);
        }
        try {
          return new Parsed.Mode(ApprovalMode.parse(words[1]).label());
        } catch (IllegalArgumentException e) {
          return invalid(e.getMessage() + ".");
        }
      case "/model":
        return words.length <= 2 ? new Parsed.Model(words.length == 1 ? null : words[1])
            : invalid("Usage: /model [NAME] (a model name is one word)");
      case "/status":
      case "/cost":
        return words.length == 1 ? new Parsed.Status() : invalid(head + " takes no arguments.");
      case "/init":
        return words.length == 1 ? new Parsed.Prompt(InstructionFiles.INIT_PROMPT, "/init")
            : invalid("/init takes no arguments: it asks the agent to write AGENTS.md.");
      default:
        String stripped = text.strip();
        String name = words[0].substring(1);
        String arguments = stripped.length() > words[0].length() ? stripped.substring(words[0].length()) : "";
        return custom.find(name).<Parsed>map(entry -> new Parsed.Prompt(entry.prompt(arguments), stripped))
            .orElseGet(() -> invalid("Unknown command " + words[0] + "." + catalog.nearest(head)
                .map(n -> " Did you mean " + n + "?").orElse("") + " Type / for the list, /help for everything."));
    }
  }

  private static Parsed checkpoint(String[] typed, int current, String defaultSaveName) {
    if (typed.length == 1) {
      return tab(new Command.List());
    }
    String sub = typed[1].toLowerCase(Locale.ROOT);
    // --force may stand anywhere after the action but after "--", where every word is a path;
    // only the commands that restore, and save (to move a name), take it.
    List<String> kept = new ArrayList<>();
    List<String> paths = new ArrayList<>();
    boolean force = false;
    boolean stat = false;
    boolean dashes = false;
    for (String word : typed) {
      if (dashes) {
        paths.add(word);
      } else if (word.equals("--")) {
        dashes = true;
      } else if (word.equals("--force")) {
        force = true;
      } else if (word.equals("--stat")) {
        stat = true;
      } else {
        kept.add(word);
      }
    }
    if (force && !List.of("undo", "redo", "goto", "restore", "revert", "save", "rescued").contains(sub)) {
      return invalid("Only undo, redo, goto, restore, revert, save and rescued … restore take --force.");
    }
    if (stat && !sub.equals("diff")) {
      return invalid("Only diff [N] takes --stat.");
    }
    if (dashes && !List.of("restore", "revert", "diff").contains(sub)) {
      return invalid("Only restore, revert and diff A B take \"-- PATH...\".");
    }
    if (dashes && paths.isEmpty()) {
      return invalid("Name the files after \"--\": /checkpoint " + sub + " N -- PATH...");
    }
    String[] words = kept.toArray(String[]::new);
    int args = words.length - 2;
    try {
      switch (sub) {
        case "list":
          return args == 0 ? tab(new Command.List()) : invalid("Usage: /checkpoint list");
        case "rescued":
          if (args == 2 && words[3].equalsIgnoreCase("restore")) {
            return new Parsed.ForTab(List.of(new Command.RestoreRescued(words[2], force)), true);
          }
          return args <= 1 && !force ? new Parsed.Rescued(args == 0 ? null : words[2])
              : invalid("Usage: /checkpoint rescued [NAME [restore [--force]]]");
        case "live":
          return args == 0 ? tab(Command.View.live()) : invalid("Usage: /checkpoint live");
        case "undo":
          if (args > 1) {
            return invalid("Usage: /checkpoint undo [N] [--force]");
          }
          OptionalInt to = args == 0 ? OptionalInt.empty() : OptionalInt.of(number(words[2]));
          return new Parsed.ForTab(List.of(new Command.Undo(to, force)), true);
        case "redo":
          return args == 0 ? new Parsed.ForTab(List.of(new Command.Redo(force)), true)
              : invalid("Usage: /checkpoint redo [--force]");
        case "save":
          if (args >= 1 && words[2].equals("--delete")) {
            return args == 2 && !force ? tab(new Command.DeleteSave(words[3]))
                : invalid("Usage: /checkpoint save --delete NAME");
          }
          return args <= 1 ? tab(new Command.Save(args == 0 ? defaultSaveName : words[2], force))
              : invalid("Usage: /checkpoint save [name] [--force] (one word: letters, digits, '.', '-', '_')");
        case "revert": {
          if (args != 1) {
            return invalid("Usage: /checkpoint revert N[..M] [-- PATH...] [--force]");
          }
          String[] range = words[2].split("\\.\\.", -1);
          if (range.length > 2) {
            return invalid("Not a checkpoint or range: \"" + words[2] + "\" (N or N..M).");
          }
          int first = number(range[0]);
          int last = range.length == 2 ? number(range[1]) : first;
          if (last < first) {
            return invalid("A range goes from the earlier checkpoint: " + last + ".." + first + ", not " + words[2] + ".");
          }
          return new Parsed.ForTab(List.of(new Command.Revert(first, last, paths, force)), true);
        }
        case "goto":
          if (args != 1) {
            return invalid("Usage: /checkpoint goto N|NAME [--force]");
          }
          return new Parsed.ForTab(List.of(words[2].matches("#?\\d+") ? new Command.GoTo(number(words[2]), force)
              : new Command.GoToSaved(words[2], force)), true);
        case "diff":
          if (args == 2 && !stat) {
            return tab(new Command.Compare(CheckpointRef.parse(words[2]), CheckpointRef.parse(words[3]), paths));
          }
          return args <= 1 && !dashes ? tab(new Command.Diff(OptionalInt.of(args == 0 ? current : number(words[2])), stat))
              : invalid("Usage: /checkpoint diff [N] [--stat] (the disk against #N; in an isolated tab, bare: the view "
                  + "against the project), or /checkpoint diff A B [-- PATH...] "
                  + "(A, B: N, live or a save's name; TAB:N for another tab, 2:N for the second)");
        case "restore":
          if (dashes) {
            return args == 1 ? new Parsed.ForTab(List.of(new Command.RestoreFiles(number(words[2]), paths, force)), true)
                : invalid("Usage: /checkpoint restore N -- PATH... [--force]");
          }
          if (args < 1 || args > 2) {
            return invalid("Usage: /checkpoint restore N [files|conversation|both] [--force]");
          }
          RestoreScope scope = args == 2 ? scope(words[3]) : RestoreScope.BOTH;
          return new Parsed.ForTab(List.of(new Command.Restore(number(words[2]), scope, force)), true);
        default:
          if (args == 0 && sub.matches("#?\\d+")) {
            return tab(Command.View.at(number(sub)));
          }
          return invalid("Unknown /checkpoint command \"" + words[1] + "\". Try: list, N, live, undo, redo, save, goto, diff, restore, revert.");
      }
    } catch (IllegalArgumentException e) {
      return invalid(e.getMessage());
    }
  }

  /** {@code /undo [N]}, {@code /redo}, {@code /diff [N]}: their /checkpoint command, with errors that name the alias. */
  private static Parsed alias(String[] words, int current, String defaultSaveName) {
    String[] full = new String[words.length + 1];
    full[0] = "/checkpoint";
    full[1] = words[0].substring(1).toLowerCase(Locale.ROOT);
    System.arraycopy(words, 1, full, 2, words.length - 1);
    Parsed parsed = checkpoint(full, current, defaultSaveName);
    if (parsed instanceof Parsed.Invalid bad) {
      return invalid(bad.message().replace("/checkpoint " + full[1], "/" + full[1]));
    }
    return parsed;
  }

  /** {@code /export-chat FILE [--force]}: the file is the rest of the line, so a name may hold spaces. */
  private static Parsed exportChat(String text) {
    String rest = text.strip().substring("/export-chat".length()).strip();
    boolean force = rest.equals("--force") || rest.endsWith(" --force");
    String file = force ? rest.substring(0, rest.length() - "--force".length()).strip() : rest;
    if (file.startsWith("--force ")) {
      force = true;
      file = file.substring("--force ".length()).strip();
    }
    if (file.isEmpty()) {
      return invalid("Usage: /export-chat FILE [--force] (FILE relative to the project, or ~/...; --force replaces one there)");
    }
    return new Parsed.ExportChat(file, force);
  }

  /** {@code /export BRANCH [A..B] [--squash] [--force]}: the path (default #0..live) as commits on a new branch. */
  private static Parsed export(String[] words) {
    String usage = "Usage: /export BRANCH [A..B] [--squash] [--force] (default: #0..live; A.. ends at live)";
    List<String> rest = new ArrayList<>();
    boolean squash = false;
    boolean force = false;
    for (int i = 1; i < words.length; i++) {
      switch (words[i]) {
        case "--squash" -> squash = true;
        case "--force" -> force = true;
        default -> rest.add(words[i]);
      }
    }
    if (rest.isEmpty() || rest.size() > 2 || rest.get(0).startsWith("-")) {
      return invalid(usage);
    }
    CheckpointRef from = null;
    CheckpointRef to = null;
    if (rest.size() == 2) {
      int dots = rest.get(1).indexOf("..");
      if (dots < 0) {
        return invalid(usage);
      }
      try {
        String a = rest.get(1).substring(0, dots);
        String b = rest.get(1).substring(dots + 2);
        from = a.isEmpty() ? null : CheckpointRef.parse(a);
        to = b.isEmpty() ? null : CheckpointRef.parse(b);
      } catch (IllegalArgumentException e) {
        return invalid(e.getMessage());
      }
    }
    return tab(new Command.Export(from, to, rest.get(0), squash, force));
  }

  private static Parsed tab(String[] words) {
    if (words.length == 1) {
      return new Parsed.TabCommand(false, -1);
    }
    if (words.length == 2 && words[1].equalsIgnoreCase("isolated")) {
      return new Parsed.OpenIsolated();
    }
    if (!words[1].equalsIgnoreCase("reopen") || words.length > 3) {
      return invalid("Usage: /tab (the closed tabs), /tab reopen [N], /tab isolated");
    }
    try {
      return new Parsed.TabCommand(true, words.length == 2 ? -1 : number(words[2]));
    } catch (IllegalArgumentException e) {
      return invalid("Not a tab number: \"" + words[2] + "\". /tab lists the closed tabs.");
    }
  }

  private static Parsed permissions(String[] words) {
    if (words.length == 1) {
      return new Parsed.PermissionsCommand(0);
    }
    if (words.length == 3 && words[1].equalsIgnoreCase("remove") && words[2].matches("\\d{1,6}") && Integer.parseInt(words[2]) > 0) {
      return new Parsed.PermissionsCommand(Integer.parseInt(words[2]));
    }
    return invalid("Usage: /permissions (lists the rules), /permissions remove N (N as listed)");
  }

  private static Parsed session(String[] words) {
    String verb = words.length > 1 ? words[1].toLowerCase(Locale.ROOT) : "list";
    int args = words.length - 2;
    return switch (verb) {
      case "list" -> args <= 0 ? new Parsed.Session("list", null) : invalid("Usage: /session list");
      case "save" -> args <= 1 ? new Parsed.Session("save", args == 1 ? words[2] : null) : invalid("Usage: /session save [name]");
      case "load" -> args == 1 ? new Parsed.Session("load", words[2]) : invalid("Usage: /session load ID|NAME");
      case "fork" -> args == 1 ? new Parsed.Session("fork", words[2]) : invalid("Usage: /session fork ID|NAME");
      case "delete" -> args == 1 ? new Parsed.Session("delete", words[2]) : invalid("Usage: /session delete ID");
      default -> invalid("Unknown /session command \"" + words[1] + "\". Try: save, load, fork, list, delete.");
    };
  }

  private static int number(String word) {
    String digits = word.startsWith("#") ? word.substring(1) : word;
    if (!digits.matches("\\d{1,9}")) {
      throw new IllegalArgumentException("Not a checkpoint number: \"" + word + "\".");
    }
    return Integer.parseInt(digits);
  }

  private static RestoreScope scope(String word) {
    return switch (word.toLowerCase(Locale.ROOT)) {
      case "files" -> RestoreScope.FILES;
      case "conversation" -> RestoreScope.CONVERSATION;
      case "both" -> RestoreScope.BOTH;
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
    return completions(typed, List.of());
  }

  /** The same among the built-in commands and {@code more} (the user's own, an MCP server's prompts). */
  public static List<String> completions(String typed, List<String> more) {
    String lower = typed.toLowerCase(Locale.ROOT);
    List<String> found = new ArrayList<>();
    List<String> words = new ArrayList<>(WORDS);
    more.stream().filter(w -> !words.contains(w)).forEach(words::add);
    for (String word : words) {
      if (word.startsWith(lower) && !word.equals(lower)) {
        found.add(word);
      }
    }
    return found;
  }

  /** What Tab turns {@code typed} into: the longest common prefix of the completions, plus a space when unique. */
  public static String complete(String typed) {
    return complete(typed, List.of());
  }

  /** The same among the built-in commands and {@code more}. */
  public static String complete(String typed, List<String> more) {
    List<String> found = completions(typed, more);
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
    String whole = prefix;
    if (WORDS.contains(whole) && found.stream().allMatch(w -> w.equals(whole) || w.startsWith(whole + " "))) {
      prefix = whole + " "; // a whole command whose subcommands follow: ready for the next word
    }
    return prefix.length() > typed.length() ? prefix : typed;
  }
}
