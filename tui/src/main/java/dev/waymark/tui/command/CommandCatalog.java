package dev.waymark.tui.command;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * The commands the interface knows, for the menu that opens on {@code /}, for {@code /help} and for
 * the "did you mean" of a mistyped command. The built-in ones come first; other features (custom
 * commands, an MCP server's prompts) {@link #add} theirs while the interface runs.
 */
public final class CommandCatalog {
  /** The built-in commands, in the order the menu and the help list them. */
  public static final List<CommandEntry> BUILT_IN = List.of(
      entry("/checkpoint", "the checkpoints as a tree: branches, undone or abandoned ones, named saves"),
      entry("/checkpoint N", "view #N (read-only; nothing on disk changes)"),
      entry("/checkpoint live", "stop viewing, back to live"),
      entry("/checkpoint undo [N] [--force]", "undo the last checkpoint (or back to #N): files and conversation; "
          + "--force overwrites later edits that clash (what they held is kept under a rescued tag)"),
      entry("/checkpoint redo [--force]", "re-apply the last undone checkpoint"),
      entry("/checkpoint save [name] [--force]", "keep a named tag of the live state; --force moves a name in use here"),
      entry("/checkpoint save --delete NAME", "delete a save (the checkpoint stays)"),
      entry("/checkpoint goto N|NAME [--force]", "make #N (or the save NAME) live, even one undone or on another branch"),
      entry("/checkpoint diff [N]", "how the files on disk differ from #N"),
      entry("/checkpoint diff A B [-- PATH...]", "how two checkpoints differ, of any branch or tab (N, live, a save; "
          + "2:N for the second tab's): n/p hunk, N/P file, a/b or A/B take a hunk or file into the project"),
      entry("/checkpoint restore N [files|conversation|both] [--force]",
          "restore only files, only conversation (each a new checkpoint), or both"),
      entry("/checkpoint restore N -- PATH... [--force]", "put only these files back as #N holds them, as a new checkpoint"),
      entry("/checkpoint revert N[..M] [-- PATH...] [--force]", "take back what #N (to #M) changed, keep every later "
          + "change: a new checkpoint; the model is told"),
      entry("/checkpoint rescued [NAME [restore]] [--force]", "what a --force overwrote, kept under rescued tags: "
          + "the list, how one differs from the disk, or put one back as a new checkpoint"),
      entry("/session save [name]", "save this session now (it is also saved after every checkpoint); a name renames it, "
          + "and earlier names still open it"),
      entry("/session load ID|NAME", "open a saved session of this project (one open in another Waymark: offered as a fork)"),
      entry("/resume [ID|NAME]", "pick a saved session of this project to open, filtered as you type (its title, first "
          + "prompt, date or id); with an id or name, open that one"),
      entry("/session fork ID|NAME", "open a copy of a saved session as a new one; the original is left as it is"),
      entry("/session list", "the saved sessions of this project"),
      entry("/session delete ID", "delete a saved session and its checkpoints' tags"),
      entry("/tab", "the tabs closed in this session"),
      entry("/tab reopen [N]", "reopen the last closed tab (or the N-th /tab lists)"),
      entry("/tab isolated", "a new isolated tab: it works on a copy-on-write view of the project, which changes only when "
          + "it lands (needs layers: bwrap and overlay)"),
      entry("/land [--keep-isolated]", "land this isolated tab's view on the project, as a checkpoint (undo takes it "
          + "back); the tab then works on the project, or with --keep-isolated stays isolated, its view empty"),
      entry("/discard", "empty this isolated tab's view, as a checkpoint (undo brings it back)"),
      entry("/undo [N]", "short for /checkpoint undo [N]"),
      entry("/redo", "short for /checkpoint redo"),
      entry("/revert N[..M] [-- PATH…] [--force]", "short for /checkpoint revert: take back what #N changed, keeping later changes"),
      entry("/rewind", "pick an earlier prompt to go back to before it (or Esc Esc on an idle, empty input)"),
      entry("/diff [N]", "short for /checkpoint diff [N]"),
      entry("/bisect [--good A] [--bad B] CMD", "the first checkpoint from A (#0) to B (live) where CMD fails, each "
          + "tested in the sandbox on a throw-away layer: the files here are never touched"),
      entry("/diff A B [-- PATH...]", "short for /checkpoint diff A B: two checkpoints, of any branch or tab"),
      entry("/export BRANCH [A..B] [--squash] [--force]", "write #0..live (or A..B) as commits on a new branch of your "
          + "git repository, HEAD, index and work tree untouched"),
      entry("/copy [N]", "the last answer (or the viewed checkpoint's) to the clipboard, or its N-th code block alone "
          + "(through the terminal: OSC 52, which works over ssh; in tmux, set-clipboard on)"),
      entry("/export-chat FILE [--force]", "this tab's conversation as Markdown, its checkpoints as headings (FILE from "
          + "the project, or ~/...; --force replaces a file there)"),
      entry("/output [N]", "the whole output of #N's tool calls (default: the viewed or live one), nothing cut"),
      entry("/mode [plan|ask|auto-edit|auto|yolo]", "the tab's approval mode (Shift+Tab cycles plan → ask → auto-edit → auto when sandboxed)"),
      entry("/model [NAME]", "the tab's model for the next turn (a list to pick from without a name)"),
      entry("/status", "provider, model, server, mode, sandbox, how commands are captured, context, tokens and cost"),
      entry("/cost", "the same as /status: tokens and cost of this tab and the session"),
      entry("/init", "ask the agent to write a starting AGENTS.md for this project (a normal turn)"),
      entry("/clear", "a fresh conversation in this tab, as a checkpoint: the files stay, undo brings the conversation back"),
      entry("/compact", "summarise the conversation into one message, a checkpoint of its own"),
      entry("/reasoning", "show or fold a reasoning model's thinking"),
      entry("/permissions", "the allow and deny rules in force (settings and this session), numbered; deny wins"),
      entry("/permissions remove N", "take rule N out (and out of the settings file it came from)"),
      entry("/mcp", "the MCP servers: state, tools, prompts, resources and last error"),
      entry("/skills", "the Agent Skills the agent may load (SKILL.md folders), and those not loaded with why"),
      entry("/hooks", "the hooks configured (Claude Code's format): event, tools, command, timeout, and which settings file"),
      entry("/help", "keys and commands"),
      entry("/quit", "leave Waymark"));

  private final List<CommandEntry> entries = new CopyOnWriteArrayList<>(BUILT_IN);
  /** Commands a source replaces whole when its list changes (an MCP server's prompts), by source. */
  private final Map<String, List<CommandEntry>> replaceable = new ConcurrentSkipListMap<>();

  private static CommandEntry entry(String usage, String description) {
    return new CommandEntry(usage, description);
  }

  /** Adds a command to the menu and the help; one whose usage is already listed is left out. */
  public void add(CommandEntry entry) {
    if (entries.stream().noneMatch(e -> e.usage().equals(entry.usage()))) {
      entries.add(entry);
    }
  }

  /**
   * Sets the commands {@code source} offers, in place of those it offered before: for lists that
   * change while the interface runs (an MCP server's prompts). One whose usage is listed already is left out.
   */
  public void replace(String source, List<CommandEntry> offered) {
    List<CommandEntry> kept = offered.stream()
        .filter(e -> entries.stream().noneMatch(known -> known.usage().equals(e.usage()))).toList();
    if (kept.isEmpty()) {
      replaceable.remove(source);
    } else {
      replaceable.put(source, kept);
    }
  }

  /** Lists read again as the menu opens or its text changes: custom command files written while Waymark runs. */
  private final Map<String, Supplier<List<CommandEntry>>> polled =
      new ConcurrentHashMap<>();

  /** Offers the commands {@code read} gives, read now and again at each {@link #refresh}. */
  public void poll(String source, Supplier<List<CommandEntry>> read) {
    polled.put(source, read);
    replace(source, read.get());
  }

  /** Reads the polled lists again (a directory listing each): called as the menu's text changes, not at every frame. */
  public void refresh() {
    polled.forEach((source, read) -> replace(source, read.get()));
  }

  public List<CommandEntry> entries() {
    List<CommandEntry> all = new ArrayList<>(entries);
    replaceable.values().forEach(all::addAll);
    return List.copyOf(all);
  }

  /**
   * The entries the menu shows for {@code typed} (a {@code /} and what follows it): those whose
   * usage starts with it; when none does, those whose command contains it; when none does either,
   * those whose description mentions it ({@code /undo} finds nothing, {@code /back} finds undo).
   */
  public List<CommandEntry> matching(String typed) {
    String wanted = typed.strip().toLowerCase(Locale.ROOT);
    List<CommandEntry> entries = entries();
    List<CommandEntry> found = new ArrayList<>();
    for (CommandEntry e : entries) {
      if (e.usage().toLowerCase(Locale.ROOT).startsWith(wanted)) {
        found.add(e);
      }
    }
    String word = wanted.startsWith("/") ? wanted.substring(1) : wanted;
    if (!found.isEmpty() || word.isEmpty() || word.contains(" ")) {
      return found; // past the command's name only a whole usage matches: Enter then runs what was typed
    }
    for (CommandEntry e : entries) {
      if (e.command().toLowerCase(Locale.ROOT).contains(word)) {
        found.add(e);
      }
    }
    if (!found.isEmpty() || word.length() < 3) {
      return found;
    }
    for (CommandEntry e : entries) {
      if (e.description().toLowerCase(Locale.ROOT).contains(word)) {
        found.add(e);
      }
    }
    return found;
  }

  /** The command nearest to a mistyped {@code word} ({@code /mdoe}), if one is near enough to be meant. */
  public Optional<String> nearest(String word) {
    String typed = word.toLowerCase(Locale.ROOT);
    return entries().stream().map(e -> e.command().split(" ")[0]).distinct()
        .map(name -> new Candidate(name, distance(typed, name)))
        .filter(c -> c.distance() <= Math.max(1, c.command().length() / 3))
        .min(Comparator.comparingInt(Candidate::distance))
        .map(Candidate::command);
  }

  private record Candidate(String command, int distance) {}

  /** Edits (insert, delete, replace, swap two neighbours) from one word to the other. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
