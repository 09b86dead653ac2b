package dev.waymark.tui.command;

import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.keys.Host;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.tab.Tabs;
import dev.waymark.tui.text.Tone;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** Runs a line that starts with {@code /}: the checkpoint commands on the tab, /tab, /session, /rewind, /help, /quit. */
public final class CommandRunner {
  private static final DateTimeFormatter SAVE_NAME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  private final Tabs tabs;
  private final Workspace workspace;
  private final Clock clock;
  private final Host host;
  private final CustomCommands custom;

  public CommandRunner(Tabs tabs, Workspace workspace, Clock clock, Host host) {
    this(tabs, workspace, clock, host, CustomCommands.NONE);
  }

  public CommandRunner(Tabs tabs, Workspace workspace, Clock clock, Host host, CustomCommands custom) {
    this.tabs = tabs;
    this.workspace = workspace;
    this.clock = clock;
    this.host = host;
    this.custom = custom;
  }

  public void run(TabController tab, String text) {
    TabState state = tab.state();
    String saveName = "cp" + state.live() + "-" + LocalDateTime.ofInstant(clock.instant(), ZoneId.systemDefault()).format(SAVE_NAME);
    SlashCommand.Parsed parsed = SlashCommand.parse(text, state.viewed().orElse(state.live()), saveName, custom);
    if (parsed instanceof SlashCommand.Parsed.Invalid invalid) {
      state.notice(Tone.ERROR, "✗ " + invalid.message());
    } else if (parsed instanceof SlashCommand.Parsed.Help) {
      host.showHelp();
    } else if (parsed instanceof SlashCommand.Parsed.Quit) {
      host.requestQuit();
    } else if (parsed instanceof SlashCommand.Parsed.TabCommand tabCommand) {
      tabCommand(tab, tabCommand);
    } else if (parsed instanceof SlashCommand.Parsed.Rewind) {
      host.openRewind(tab);
    } else if (parsed instanceof SlashCommand.Parsed.ToggleReasoning) {
      state.toggleReasoning();
    } else if (parsed instanceof SlashCommand.Parsed.Prompt prompt) {
      if (state.running()) {
        tab.steer(prompt.text()); // as a typed message would: it goes into the running turn
      } else {
        tab.send(prompt.text());
      }
      tab.scroll().follow();
    } else if (parsed instanceof SlashCommand.Parsed.Session session) {
      sessionCommand(tab, session);
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

  private void sessionCommand(TabController tab, SlashCommand.Parsed.Session command) {
    try {
      switch (command.verb()) {
        case "save" -> {
          tabs.syncDrafts(workspace);
          tab.state().notice(Tone.ACCENT, workspace.save(command.argument()));
        }
        case "list" -> tab.state().notice(Tone.NORMAL, String.join("\n", workspace.list()));
        case "delete" -> tab.state().notice(Tone.MUTED, workspace.delete(command.argument()));
        case "load" -> load(command.argument());
        default -> tab.state().notice(Tone.ERROR, "✗ Unknown /session command.");
      }
    } catch (SessionException e) {
      tab.state().notice(Tone.ERROR, "✗ " + e.getMessage());
    }
  }

  private void load(String idOrName) {
    for (TabController t : tabs.open()) {
      if (t.state().running()) {
        tabs.current().state().notice(Tone.ERROR, "✗ A turn is running in tab " + tabs.number(t)
            + "; interrupt it (Esc) before loading another session.");
        return;
      }
    }
    tabs.syncDrafts(workspace);
    Workspace.Opened opened = workspace.load(idOrName); // saves this session first, closes its tabs
    tabs.clear();
    host.showOpened(opened);
    if (tabs.isEmpty()) {
      host.openTab();
    }
  }
}
