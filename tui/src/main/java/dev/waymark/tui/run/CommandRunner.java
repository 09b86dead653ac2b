package dev.waymark.tui.run;

import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.SessionFork;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.chat.Blocks;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.command.CommandCatalog;
import dev.waymark.tui.command.ModeText;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.command.SlashCommand;
import dev.waymark.tui.keys.Host;
import dev.waymark.tui.screen.Picker;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.tab.Tabs;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Tone;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs a line that starts with {@code /}: the checkpoint commands on the tab, /tab, /session, /permissions, /rewind, /help, /quit. */
public final class CommandRunner {
  private static final DateTimeFormatter SAVE_NAME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  private final Tabs tabs;
  private final Workspace workspace;
  private final Clock clock;
  private final Host host;
  private final CommandCatalog catalog;
  private final CustomCommands custom;
  private final BisectRunner bisect;

  /** {@code catalog}: the commands a mistyped one is compared with; {@code custom}: the user's own, run as prompts. */
  public CommandRunner(Tabs tabs, Workspace workspace, Clock clock, Host host, CommandCatalog catalog,
      CustomCommands custom) {
    this.tabs = tabs;
    this.workspace = workspace;
    this.clock = clock;
    this.host = host;
    this.catalog = catalog;
    this.custom = custom;
    this.bisect = new BisectRunner(workspace, host);
  }

  public void run(TabController tab, String text) {
    TabState state = tab.state();
    String saveName = "cp" + state.live() + "-" + LocalDateTime.ofInstant(clock.instant(), ZoneId.systemDefault()).format(SAVE_NAME);
    SlashCommand.Parsed parsed = SlashCommand.parse(text, state.viewed().orElse(state.live()), saveName, catalog, custom);
    if (parsed instanceof SlashCommand.Parsed.Invalid invalid) {
      state.notice(Tone.ERROR, "✗ " + invalid.message());
    } else if (parsed instanceof SlashCommand.Parsed.Help) {
      host.showHelp();
    } else if (parsed instanceof SlashCommand.Parsed.Quit) {
      host.requestQuit();
    } else if (parsed instanceof SlashCommand.Parsed.TabCommand tabCommand) {
      tabCommand(tab, tabCommand);
    } else if (parsed instanceof SlashCommand.Parsed.Bisect asked) {
      bisect.start(tab, asked);
    } else if (parsed instanceof SlashCommand.Parsed.OpenIsolated) {
      host.openIsolatedTab();
    } else if (parsed instanceof SlashCommand.Parsed.Rewind) {
      host.openRewind(tab);
    } else if (parsed instanceof SlashCommand.Parsed.Output output) {
      output(state, output.checkpoint());
    } else if (parsed instanceof SlashCommand.Parsed.Rescued rescued) {
      RescuedReport.show(tab, rescued.name(), host);
    } else if (parsed instanceof SlashCommand.Parsed.McpServers) {
      state.notice(Tone.NORMAL, "MCP servers:\n" + String.join("\n",
          McpServers.describe(workspace.mcp().status())));
    } else if (parsed instanceof SlashCommand.Parsed.Skills) {
      state.notice(Tone.NORMAL, String.join("\n", workspace.skills().describe()));
    } else if (parsed instanceof SlashCommand.Parsed.Hooks) {
      state.notice(Tone.NORMAL, String.join("\n", workspace.hooks().describe()));
    } else if (parsed instanceof SlashCommand.Parsed.ToggleReasoning) {
      state.toggleReasoning();
    } else if (parsed instanceof SlashCommand.Parsed.PermissionsCommand permissions) {
      permissionsCommand(tab, permissions.remove());
    } else if (parsed instanceof SlashCommand.Parsed.Mode mode) {
      mode(tab, mode.name());
    } else if (parsed instanceof SlashCommand.Parsed.Model model) {
      model(tab, model.name());
    } else if (parsed instanceof SlashCommand.Parsed.Status) {
      state.notice(Tone.NORMAL, StatusReport.render(host.runInfo(), tab, tabs.number(tab), all()));
    } else if (parsed instanceof SlashCommand.Parsed.Prompt prompt) {
      if (host.sendThroughMcp(tab, prompt.text())) {
        return; // a custom command whose prompt attaches an MCP server's resource
      }
      if (state.running()) {
        tab.steer(prompt.text(), prompt.typed()); // as a typed message would: it goes into the running turn
      } else {
        tab.send(prompt.text(), prompt.typed());
      }
      tab.scroll().follow();
    } else if (parsed instanceof SlashCommand.Parsed.Session session) {
      sessionCommand(tab, session);
    } else if (parsed instanceof SlashCommand.Parsed.Resume) {
      try {
        ResumePicker.of(workspace.files().list(), workspace.id(), clock.getZone(),
            id -> sessionCommand(tab, new SlashCommand.Parsed.Session("load", id)))
            .ifPresentOrElse(host::pick, () -> state.notice(Tone.MUTED, "This project has no saved sessions yet."));
      } catch (SessionException e) {
        state.notice(Tone.ERROR, "✗ " + e.getMessage());
      }
    } else if (parsed instanceof SlashCommand.Parsed.Copy copy) {
      ChatOut.copy(state, copy.block(), host.clipboard());
    } else if (parsed instanceof SlashCommand.Parsed.ExportChat export) {
      ChatOut.export(state, state.title(), export, workspace.store().projectDirectory(),
          Path.of(System.getProperty("user.home", "/")), clock.getZone());
    } else if (parsed instanceof SlashCommand.Parsed.ForTab forTab) {
      if (state.running() && forTab.keepsDraft()) {
        state.notice(Tone.ERROR, "✗ A turn is running; interrupt it (Esc) before moving the tab.");
        return;
      }
      List<Command> commands = new ArrayList<>();
      if (forTab.keepsDraft()) {
        commands.add(new Command.KeepDraft(""));
      }
      commands.addAll(forTab.commands());
      tab.run(commands);
    }
  }

  private List<TabController> all() {
    List<TabController> every = new ArrayList<>(tabs.open());
    every.addAll(tabs.closed());
    return every;
  }

  /** {@code /mode}: what the tab's mode is and how to change it; {@code /mode NAME}: set it. */
  private void mode(TabController tab, String name) {
    boolean sandboxed = host.runInfo().sandboxed();
    if (name == null) {
      tab.state().notice(Tone.NORMAL, "Mode " + ModeText.describe(tab.mode()) + ".\nShift+Tab cycles "
          + ModeText.cycle(sandboxed) + "; /mode NAME sets any of " + ApprovalMode.labels() + ".");
      return;
    }
    ApprovalMode mode = ApprovalMode.parse(name);
    tab.setMode(mode);
    tab.state().notice(mode == ApprovalMode.YOLO ? Tone.WARNING : Tone.MUTED, "Mode " + ModeText.describe(mode) + ".");
  }

  /** {@code /model NAME}: the tab's next turn asks for it; {@code /model}: a list from the provider's models. */
  private void model(TabController tab, String name) {
    RunInfo run = host.runInfo();
    if (name != null) {
      tab.setModel(name);
      String known = run.models().isEmpty() || run.models().contains(name) ? ""
          : " It is not among the models of " + run.provider() + " in settings; the server says so if it does not know it.";
      tab.state().notice(Tone.MUTED, "Model " + name + " from the next turn." + known);
      return;
    }
    if (run.serverModels() != null) {
      tab.state().notice(Tone.MUTED, "Asking " + run.provider() + " for its models…");
      host.inBackground(run.serverModels()::list, (offered, failed) -> {
        if (failed == null) {
          pickModel(tab, run, offered);
          return;
        } // said in the chat, not under a picker that would hide it
        tab.state().notice(Tone.WARNING, "! " + run.provider() + " could not list its models: " + failed.getMessage()
            + ". Model " + tab.model() + (run.models().isEmpty() ? "" : "; settings list " + String.join(", ", run.models()))
            + ". /model NAME sets any name the server knows.");
      });
      return;
    }
    pickModel(tab, run, List.of());
  }

  /** The picker over the tab's model, those the settings list and those the server offered. */
  private void pickModel(TabController tab, RunInfo run, List<String> offered) {
    List<String> models = new ArrayList<>(run.models());
    offered.stream().filter(m -> !models.contains(m)).forEach(models::add);
    if (!models.contains(tab.model())) {
      models.add(0, tab.model());
    }
    if (models.size() == 1 && run.serverModels() != null) {
      if (!offered.isEmpty()) { // else the server's failure was said
        tab.state().notice(Tone.NORMAL, "Model " + tab.model() + ": the only one " + run.provider() + " offers.");
      }
      return;
    }
    if (models.size() == 1) {
      tab.state().notice(Tone.NORMAL, "Model " + tab.model() + ". Provider " + run.provider() + " lists no other model in "
          + "settings (\"models\" of its entry in \"providers\"); /model NAME sets any name the server knows.");
      return;
    }
    List<Picker.Choice> choices = new ArrayList<>();
    for (int i = 0; i < models.size(); i++) {
      choices.add(new Picker.Choice(models.get(i), models.get(i).equals(tab.model()) ? "now" : "", i));
    }
    host.pick(new Picker("Model for the next turn of this tab (" + run.provider() + ")", choices,
        Math.max(0, models.indexOf(tab.model())), chosen -> model(tab, models.get(chosen.value()))));
  }

  /** {@code /output N}: every tool call of {@code #N} whole, in a scrollable panel. */
  private void output(TabState state, int checkpoint) {
    List<Blocks.ToolUse> calls = state.blocks().stream()
        .filter(b -> b instanceof Blocks.ToolUse && b.checkpoint() == checkpoint).map(b -> (Blocks.ToolUse) b).toList();
    if (calls.isEmpty()) {
      state.notice(Tone.MUTED, "#" + checkpoint + " made no tool call in this tab's chat.");
      return;
    }
    host.showPanel("Output of #" + checkpoint + " · " + calls.size() + (calls.size() == 1 ? " tool call" : " tool calls")
, width -> {
          List<Line> rows = new ArrayList<>();
          for (Blocks.ToolUse call : calls) {
            rows.addAll(call.whole(width));
            rows.add(Line.plain(""));
          }
          return rows;
        });
  }

  /** {@code /tab}: the closed tabs; {@code /tab reopen [N]}: the last closed one, or the N-th listed. */
  private void tabCommand(TabController tab, SlashCommand.Parsed.TabCommand command) {
    List<TabController> closed = tabs.closed();
    if (closed.isEmpty()) {
      tab.state().notice(Tone.MUTED, "No closed tab to reopen in this session.");
      return;
    }
    if (!command.reopen()) {
      List<String> lines = new ArrayList<>(List.of("Closed tabs (/tab reopen N):"));
      for (int i = 0; i < closed.size(); i++) {
        TabState s = closed.get(i).state();
        lines.add("  " + (i + 1) + "  " + (s.title().isEmpty() ? "(no prompt)" : s.title()) + "  · live #" + s.live());
      }
      tab.state().notice(Tone.NORMAL, String.join("\n", lines));
      return;
    }
    int index = command.number() < 0 ? closed.size() - 1 : command.number() - 1;
    if (index < 0 || index >= closed.size()) {
      tab.state().notice(Tone.ERROR, "✗ There is no closed tab " + (index + 1) + "; /tab lists them.");
      return;
    }
    TabController back = tabs.reopen(index);
    workspace.reopen(back.tab());
    back.state().notice(Tone.MUTED, "Tab reopened.");
  }

  /** {@code /permissions}: the rules in force, numbered; {@code remove} > 0 takes that one out (and out of its file). */
  private static void permissionsCommand(TabController tab, int remove) {
    Permissions permissions = tab.session().permissions();
    List<Permissions.Entry> rules = permissions.entries();
    if (remove > 0) {
      if (remove > rules.size()) {
        tab.state().notice(Tone.ERROR, "✗ There is no rule " + remove + "; /permissions lists " + rules.size() + ".");
        return;
      }
      Permissions.Entry rule = rules.get(remove - 1);
      try {
        permissions.remove(rule);
        tab.state().notice(Tone.MUTED, "Removed: " + rule + ".");
      } catch (IOException | RuntimeException e) {
        tab.state().notice(Tone.ERROR, "✗ Could not remove " + rule.rule() + " from " + rule.scope().label() + ": "
            + e.getMessage());
      }
      return;
    }
    if (rules.isEmpty()) {
      tab.state().notice(Tone.MUTED, "No allow or deny rules. \"Allow … from now on\" at an approval adds one; settings "
          + "take \"allow\" and \"deny\" lists, e.g. \"run_shell(npm test:*)\".");
      return;
    }
    List<String> lines = new ArrayList<>(List.of("Allow and deny rules (deny wins; /permissions remove N):"));
    for (int i = 0; i < rules.size(); i++) {
      lines.add(String.format("  %d  %s", i + 1, rules.get(i)));
    }
    tab.state().notice(Tone.NORMAL, String.join("\n", lines));
  }

  private void sessionCommand(TabController tab, SlashCommand.Parsed.Session command) {
    try {
      switch (command.verb()) {
        case "save" -> {
          tabs.syncDrafts(workspace);
          tab.state().notice(Tone.ACCENT, workspace.save(command.argument()));
        }
        case "list" -> tab.state().notice(Tone.NORMAL, String.join("\n", workspace.list()));
        case "delete" -> tab.state().notice(Tone.MUTED, workspace.delete(command.argument()));
        case "load" -> load(command.argument(), false);
        case "fork" -> load(command.argument(), true);
        default -> tab.state().notice(Tone.ERROR, "✗ Unknown /session command.");
      }
    } catch (SessionException e) {
      tab.state().notice(Tone.ERROR, "✗ " + e.getMessage());
    }
  }

  /** {@code fork}: a copy of the session, opened as a new one; a session another Waymark holds is offered so. */
  private void load(String idOrName, boolean fork) {
    for (TabController t : tabs.open()) {
      if (t.state().running()) {
        tabs.current().state().notice(Tone.ERROR, "✗ A turn is running in tab " + tabs.number(t)
            + "; interrupt it (Esc) before loading another session.");
        return;
      }
    }
    SessionFile asked = workspace.files().load(idOrName);
    Optional<String> elsewhere = fork ? Optional.empty() : SessionFork.openElsewhere(workspace.store(), asked);
    if (elsewhere.isPresent()) {
      host.pick(new Picker(elsewhere.get() + ": fork it?", List.of(
          new Picker.Choice("Fork it", "a new session with a copy of its tabs and checkpoints; the original is left as it is", 1),
          new Picker.Choice("Cancel", "nothing is opened", 0)), 0, chosen -> {
            if (chosen.value() == 1) {
              try {
                load(asked.id(), true);
              } catch (SessionException e) { // chosen after the command returned: its catch is gone
                tabs.current().state().notice(Tone.ERROR, "✗ " + e.getMessage());
              }
            }
          }));
      return;
    }
    tabs.syncDrafts(workspace);
    String opening = idOrName;
    if (fork) {
      SessionFork.Forked forked = SessionFork.fork(workspace.store(), workspace.files(), asked);
      opening = forked.session().id();
      forked.notes().forEach(note -> tabs.current().state().notice(Tone.WARNING, "! " + note));
    }
    Workspace.Opened opened = workspace.load(opening); // saves this session first, closes its tabs
    tabs.clear();
    host.showOpened(opened);
    if (tabs.isEmpty()) {
      host.openTab();
    }
    if (fork) {
      tabs.current().state().notice(Tone.ACCENT, "Session " + asked.id() + " forked as " + workspace.id()
          + "; the original is left as it is.");
    }
  }
}
