package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.bisect.Bisection;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.context.FileIndex;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.model.HttpOptions;
import dev.waymark.core.model.ServerModels;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.skill.SkillCatalog;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.wording.Wording;
import dev.waymark.core.workspace.GivenNow;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.WaymarkUi;
import dev.waymark.tui.command.ModelLister;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.run.Notifier;
import dev.waymark.tui.terminal.Clipboard;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.KeyReader;
import dev.waymark.tui.terminal.UiTerminal;
import java.io.Console;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires store, sessions, model, tools and settings into the full-screen interface and runs it. */
final class UiLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(UiLauncher.class);

  private static final String NOTHING_TO_CONTINUE = "This project has no saved session to continue; `waymark` starts a new one.";

  private UiLauncher() {}

  /** Which session the interface opens: a new one, the last one, or one chosen by id, name or picker. */
  record Opening(boolean continueLast, Optional<String> resume, String continueCommand, GivenNow given, boolean fork) {
    static final Opening NEW = new Opening(false, Optional.empty());

    Opening(boolean continueLast, Optional<String> resume) {
      this(continueLast, resume, "waymark --continue", GivenNow.NOTHING);
    }

    Opening(boolean continueLast, Optional<String> resume, String continueCommand, GivenNow given) {
      this(continueLast, resume, continueCommand, given, false);
    }

    /** Opening as asked, the flags given now winning over what the reopened tabs saved. */
    Opening given(GivenNow now) {
      return new Opening(continueLast, resume, continueCommand, now, fork);
    }

    /** Opening a fork of the session asked for ({@code --fork}), not the session. */
    Opening forked(boolean asked) {
      return new Opening(continueLast, resume, continueCommand, given, asked);
    }
  }

  /** Runs the interface; returns the exit status. */
  static int run(Path project, WaymarkHome home, Settings settings, Permissions permissions,
      Providers.Choice choice, ApprovalMode approval, KeyMap keys, Opening opening, List<String> welcome,
      List<String> warnings, PrintWriter err, ShellSandbox sandbox) throws Exception {
    if ((opening.continueLast() || opening.resume().isPresent()) && !ShadowStore.exists(project, home)) {
      // refused before the store is opened, which would make one for a project that never had a session
      err.println("waymark: " + NOTHING_TO_CONTINUE);
      return 1;
    }
    try (ShadowStore store = ShadowStore.open(project, home, settings.retentionPolicy(), settings.exclusions());
        McpServers mcp = Workspaces.mcp(settings, project, System.getenv())) {
      store.prepareShellCapture(settings.toolSettings().maxFileSize(), sandbox.bwrap(), !mcp.isEmpty());
      SkillCatalog skills = SkillFiles.of(System.getenv(), project);
      var search = settings.webSearch(System.getenv());
      List<String> notices = new ArrayList<>(warnings);
      search.problem().ifPresent(notices::add);
      Workspace workspace = Workspaces.of(store, choice.provider(),
          () -> choice.create(HttpOptions.defaults().withMaxAnswerBytes(settings.answerBytes())),
          settings.session(choice.model(), approval, true, System.getenv()),
          settings.toolSettings().withSandbox(sandbox), permissions, mcp, Workspaces.sandboxing(sandbox), skills,
          settings.webAccess(), search.search(), AgentFiles.of(System.getenv(), project), settings.parallelSubagents());
      workspace.skills(skills);
      workspace.hooks(HookFiles.of(System.getenv(), project, sandbox, settings.toolSettings().maxFileSize()));
      workspace.bisection(() -> Bisection.open(BisectSetups.of(store, settings, sandbox,
          System.getenv(), BisectSetups.DEFAULT_TIMEOUT)));
      workspace.givenNow(opening.given());
      Optional<SessionFile> chosen;
      try {
        chosen = choose(workspace.files(), opening, err);
        if (chosen.isPresent()) { // one another Waymark holds is offered as a fork
          chosen = ForkChoice.forInterface(store, workspace.files(), chosen.get(), opening.fork(), System.console(), err);
          if (chosen.isEmpty()) {
            return 1;
          }
        }
      } catch (SessionException e) {
        err.println("waymark: " + e.getMessage());
        return 1;
      }
      // --resume alone: the interface opens on /resume's list, which filters as one types; --fork picks on the console
      boolean resumeList = opening.resume().filter(String::isEmpty).isPresent() && !opening.fork();
      if (opening.resume().filter(String::isEmpty).isPresent() && opening.fork() && chosen.isEmpty()) {
        return 0; // the picker was left without a choice
      }
      Workspace.Opened opened = chosen.map(workspace::open).orElse(null);
      try (UiTerminal terminal = UiTerminal.open()) {
        WaymarkUi ui = new WaymarkUi(terminal.screen(), terminal::frame, workspace,
            new WaymarkUi.Options(choice.model().equals(choice.provider()) ? choice.model() : choice.provider() + " · " + choice.model(),
                approvalLabel(approval, sandbox), keys, Clock.systemDefaultZone(), runInfo(settings, choice, sandbox, store),
                CommandFiles.of(System.getenv(), project), new FileIndex(store.projectDirectory())));
        ui.bellOnApproval(settings.ringsBell());
        ui.clipboard(new Clipboard(terminal::send, System.getenv("TMUX") != null));
        if (settings.notifies()) {
          ui.notifications(new Notifier(terminal::send, Notifier.kindFor(System.getenv()),
              System.getenv("TMUX") != null));
        }
        terminal.onResize(ui::wake);
        KeyReader.start(terminal, ui::post);
        if (opened != null) {
          ui.showOpened(opened);
        } else {
          ui.openTab();
        }
        if (resumeList) {
          ui.openResumeList();
        }
        ui.startupNotices(store.recovered());
        ui.startupNotices(notices);
        sandbox.notice().ifPresent(notice -> ui.startupNotices(List.of(notice)));
        if (!welcome.isEmpty()) {
          ui.startupNotices(List.of(String.join("\n", welcome)), false);
        }
        ui.run();
      }
      if (workspace.saved() && opened == null && choice.type().equals("none") && nothingIn(workspace)) {
        // the welcome of a run without a model, read and left: no session to offer in every --resume list
        try (Workspace headless = Workspaces.headless(store)) {
          headless.deleteSession(workspace.id());
        }
      } else if (workspace.saved()) {
        err.println("waymark: session " + workspace.label() + " saved; `" + opening.continueCommand() + "` opens it again.");
      }
      LOG.info("the interface closed normally");
      return 0;
    }
  }

  private static boolean nothingIn(Workspace workspace) {
    SessionFile saved = workspace.files().load(workspace.id());
    return SessionStore.checkpointsMade(saved) == 0 && saved.tabs().stream().allMatch(t -> t.input() == null || t.input().isBlank());
  }

  /** What /status, /model and Shift+Tab know of this run. */
  static RunInfo runInfo(Settings settings, Providers.Choice choice, ShellSandbox sandbox,
      ShadowStore store) {
    List<String> models = settings.providers().stream().filter(p -> p.id().equalsIgnoreCase(choice.provider()))
        .findFirst().map(Settings.ProviderSetting::models).orElse(List.of());
    return new RunInfo(choice.provider(), choice.baseUrl() == null ? "" : choice.baseUrl().toString(), models,
        sandbox.confines(), sandbox.describe() + "; network: " + sandbox.describeNetwork(), settings.priceTable(),
        () -> Wording.shellCapture(store.noLayer(sandbox.confines() ? sandbox.bwrap() : Optional.empty())),
        serverModels(choice));
  }

  /** How /model asks the server for its models; null for a provider with no server (scripted, demo, none). */
  static ModelLister serverModels(Providers.Choice choice) {
    if (choice.baseUrl() == null || List.of("none", "scripted", "demo").contains(choice.type())) {
      return null;
    }
    return () -> ServerModels.list(choice.endpoint(), choice.type().equals("anthropic"));
  }

  /** The footer's approval mode; {@code auto} without a sandbox says that commands are asked about. */
  static String approvalLabel(ApprovalMode approval, ShellSandbox sandbox) {
    String label = approval.label();
    return approval == ApprovalMode.AUTO && !sandbox.confines() ? label + " (no sandbox)" : label;
  }

  private static Optional<SessionFile> choose(SessionStore files, Opening opening, PrintWriter err) {
    if (opening.continueLast()) {
      Optional<SessionFile> last = files.latest();
      if (last.isEmpty()) {
        throw new SessionException(ErrorKind.NOT_FOUND, NOTHING_TO_CONTINUE);
      }
      return last;
    }
    if (opening.resume().isEmpty()) {
      return Optional.empty();
    }
    String wanted = opening.resume().get();
    if (!wanted.isEmpty()) {
      return Optional.of(files.load(wanted));
    }
    if (!opening.fork()) {
      if (files.list().isEmpty()) {
        throw new SessionException(ErrorKind.NOT_FOUND, "This project has no saved sessions; `waymark` starts a new one.");
      }
      return Optional.empty(); // the interface opens on /resume's list
    }
    return pick(files, err);
  }

  /** The session picker of {@code --resume --fork} without an id: a numbered list on the terminal. */
  private static Optional<SessionFile> pick(SessionStore files, PrintWriter err) {
    List<SessionStore.Listing> all = files.list();
    if (all.isEmpty()) {
      throw new SessionException(ErrorKind.NOT_FOUND, "This project has no saved sessions; `waymark` starts a new one.");
    }
    Console console = System.console();
    if (console == null) {
      throw new SessionException(ErrorKind.REFUSED, "--resume without an id needs a terminal to choose on; give the id (`waymark sessions` lists them).");
    }
    PrintWriter out = console.writer();
    out.println("Saved sessions of this project, newest first:");
    for (int i = 0; i < all.size(); i++) {
      out.printf("%3d) %s%n", i + 1, SessionsCommand.line(all.get(i), Instant.now())); // titles, as `waymark sessions`
    }
    while (true) {
      String answer = console.readLine("Open which one? [1-%d, Enter to cancel] ", all.size());
      if (answer == null || answer.isBlank()) {
        return Optional.empty();
      }
      try {
        int choice = Integer.parseInt(answer.trim());
        if (choice >= 1 && choice <= all.size()) {
          SessionStore.Listing listing = all.get(choice - 1);
          if (listing.problem().isPresent()) {
            out.println(listing.problem().get());
            continue;
          }
          return Optional.of(files.read(listing.file()));
        }
      } catch (NumberFormatException e) {
        // asked again below
      }
      out.println("Type a number from 1 to " + all.size() + ".");
    }
  }

  static Path project(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("Not a directory: " + dir);
    }
    return dir;
  }
}
