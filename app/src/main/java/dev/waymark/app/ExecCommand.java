package dev.waymark.app;

import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.HttpOptions;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.Console;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code waymark exec}: one turn, headless. The answer goes to stdout, tool activity to stderr. */
@Command(
    name = "exec",
    mixinStandardHelpOptions = true,
    description = {
      "Run one agent turn in a project without the interface: the answer streams to stdout, tool activity to "
          + "stderr, and the turn's file changes become a checkpoint you can undo.",
      "Exit status: 0 when the turn finished, 1 when it failed (one line on stderr says why), 2 for bad "
          + "arguments, 130 when interrupted.",
      "",
      "Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, WAYMARK_HOME "
          + "(where checkpoints and logs live)."
    })
final class ExecCommand implements Callable<Integer> {
  /** How long Ctrl-C waits for the cancelled turn to store its checkpoint before the JVM halts. */
  private static final java.time.Duration INTERRUPT_GRACE = java.time.Duration.ofSeconds(10);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Main main;

  @CommandLine.Mixin ModelOptions options;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Option(names = "--session", paramLabel = "ID",
      description = "Continue a saved session (id or name) instead of starting a new one.")
  String sessionId;

  @Option(names = "--tab", paramLabel = "ID", description = "With --session: the tab to continue (default: its active tab, else its first open one).")
  String tabId;

  @Option(names = "--from", paramLabel = "N",
      description = "With --session: branch from checkpoint N (files and conversation go back there first) instead of going on from live.")
  Integer from;

  @Parameters(arity = "1..*", paramLabel = "PROMPT", description = "What to ask; several words are joined with spaces.")
  List<String> prompt;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    java.util.Map<String, String> env = main.env();
    Settings settings;
    try {
      Settings.Loaded loaded = options.settings(env, directory.toAbsolutePath());
      loaded.warning().ifPresent(warning -> err.println("waymark: " + warning));
      settings = loaded.settings();
    } catch (Settings.BadSettings e) {
      err.println("waymark: " + e.getMessage());
      return 2;
    }
    ApprovalMode mode = options.approvalMode(settings, env, spec.commandLine());
    dev.waymark.core.sandbox.ShellSandbox sandbox = dev.waymark.core.sandbox.ShellSandbox.detect(
        settings.sandboxPolicy(main.home(), env), env.getOrDefault("PATH", System.getenv("PATH")));
    sandbox.notice().ifPresent(notice -> err.println("waymark: " + notice));
    Providers.Choice choice = options.choose(settings, env, spec.commandLine());
    Console console = System.console();
    boolean interactive = console != null && mode != ApprovalMode.YOLO;

    // On Ctrl-C the JVM halts as soon as its shutdown hooks return: the hook cancels the turn and
    // then waits until the turn's checkpoint is stored and the store closed, so nothing is lost.
    CountDownLatch ended = new CountDownLatch(1);
    try (ShadowStore store = ShadowStore.open(directory.toAbsolutePath(), main.home(), settings.retentionPolicy(),
        settings.exclusions())) {
      for (String note : store.recovered()) {
        err.println("waymark: " + note);
      }
      store.prepareShellCapture(settings.toolSettings().maxFileSize());
      BlockingQueue<Event> events = new LinkedBlockingQueue<>();
      // the interface's advice for a conversation too long names /compact; exec words its own
      java.util.concurrent.atomic.AtomicReference<ModelException> tooLong = new java.util.concurrent.atomic.AtomicReference<>();
      Workspace workspace = Workspaces.of(store, choice.provider(),
          () -> noticingTooLong(choice.create(HttpOptions.defaults().withMaxAnswerBytes(settings.answerBytes())), tooLong),
          new SessionSettings(choice.model(), mode, interactive, null, settings.stepsPerTurn()),
          settings.toolSettings().withSandbox(sandbox));
      // a save that went unexpectedly (failed, or the session changed elsewhere); the turn goes on
      workspace.onNotice(note -> err.println("waymark: " + note));
      WorkspaceTab chosen;
      if (sessionId != null) {
        var file = workspace.files().load(sessionId);
        Workspace.Opened opened = workspace.open(file); // keeps the tab the interface shows: exec does not change it
        opened.notes().forEach(note -> err.println("waymark: " + note));
        String wanted = tabId != null ? tabId : Workspace.defaultTab(file).orElse(null);
        chosen = opened.tabs().stream().filter(t -> t.tabId().equals(wanted)).findFirst()
            .orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(), "Session " + workspace.label()
                + " has no tab " + tabId + " (it has " + String.join(", ", opened.tabs().stream()
                .map(WorkspaceTab::tabId).toList()) + ")."));
      } else if (tabId != null || from != null) {
        workspace.close();
        throw new CommandLine.ParameterException(spec.commandLine(), (tabId != null ? "--tab" : "--from") + " needs --session.");
      } else {
        chosen = workspace.newTab();
      }
      TabSession session = chosen.session();
      try (workspace) {
        session.subscribe(events::add);
        Thread interrupt = new Thread(() -> {
          session.submit(new dev.waymark.core.protocol.Command.Cancel());
          try {
            ended.await(INTERRUPT_GRACE.toMillis(), TimeUnit.MILLISECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        Runtime.getRuntime().addShutdownHook(interrupt);
        try {
          String text = String.join(" ", prompt);
          // the workspace saves the session before the turn, with the prompt as the tab's input: the
          // turn writes ahead to the store from its first tool call, so a process killed at any
          // moment leaves a session that names the tab (its tags come back) and keeps the prompt
          workspace.submit(chosen, List.of(from != null
              ? new dev.waymark.core.protocol.Command.Branch(from, text)
              : new dev.waymark.core.protocol.Command.SendPrompt(text)));
          java.util.function.UnaryOperator<String> advice = failure -> {
            ModelException e = tooLong.get();
            return e == null || !failure.startsWith(e.getMessage()) ? failure
                : e.getMessage() + tooLongAdvice(workspace.id(), workspace.tabs().size() > 1 ? chosen.tabId() : null);
          };
          int status = report(session, events, out, err, console, advice);
          session.idle().get(10, TimeUnit.SECONDS);
          String told = workspace.save(null);
          if (!told.startsWith("Saved session")) {
            err.println("waymark: " + told);
          }
          if (status != 1) { // a failure is one line saying why; the session is saved all the same
            err.println("waymark: session " + workspace.label() + ", tab " + chosen.tabId());
          }
          return status;
        } finally {
          try {
            Runtime.getRuntime().removeShutdownHook(interrupt);
          } catch (IllegalStateException shuttingDown) {
            // the hook is running: the turn is being cancelled
          }
        }
      }
    } finally {
      out.flush();
      err.flush();
      ended.countDown();
    }
  }

  /** Prints events until the turn ends; answers approval prompts on the terminal. */
  private int report(TabSession session, BlockingQueue<Event> events, PrintWriter out, PrintWriter err, Console console,
      java.util.function.UnaryOperator<String> advice) throws InterruptedException {
    boolean midLine = false;
    String failure = null;
    CheckpointView unchanged = null;
    boolean started = false;
    while (true) {
      Event event = events.take();
      if (event instanceof Event.TurnStarted) {
        started = true; // the workspace saves again, with the prompt in the conversation
      }
      if (event instanceof Event.AssistantDelta delta) {
        out.print(delta.text());
        out.flush();
        midLine = !delta.text().endsWith("\n");
        continue;
      }
      if (midLine) {
        out.println();
        midLine = false;
      }
      if (event instanceof Event.ToolCallProposed proposed) {
        err.println("> " + proposed.call().name() + " " + proposed.summary());
        if (proposed.needsApproval() && console != null) {
          session.submit(ask(console, proposed));
        }
      } else if (event instanceof Event.ToolCallFinished finished) {
        err.println((finished.isError() ? "  ✗ " : "  ✓ ") + firstLine(finished.result()));
        notRecorded(finished.result()).forEach(err::println);
      } else if (event instanceof Event.Waiting waiting) {
        err.println("waymark: " + waiting.message());
      } else if (event instanceof Event.Warning warning) {
        err.println("waymark: " + warning.message());
      } else if (event instanceof Event.Error error) {
        failure = advice.apply(error.message());
        if (!started) { // the turn could not even begin (e.g. a branch stopped by clashing edits)
          err.println("waymark: " + failure);
          return 1;
        }
      } else if (event instanceof Event.CheckpointCreated created) {
        if (created.checkpoint().changedFiles()) {
          err.println(describe(created.checkpoint()));
        } else {
          unchanged = created.checkpoint(); // a failed turn's only line is its reason
        }
      } else if (event instanceof Event.TurnFinished finished) {
        out.flush();
        if (finished.status() == TurnStatus.DONE) {
          if (unchanged != null) {
            err.println(describe(unchanged));
          }
          err.flush();
          return 0;
        }
        if (finished.status() == TurnStatus.CANCELLED) {
          err.println(unchanged != null
              ? "waymark: interrupted before the turn changed any file"
              : "waymark: interrupted; what the turn changed is in checkpoint #" + finished.checkpoint());
          return 130;
        }
        err.println("waymark: " + (failure == null ? "the turn failed" : failure));
        return 1;
      }
      err.flush();
    }
  }

  /** {@code model}, recording into {@code tooLong} each failure that says the conversation is too long. */
  static ChatModel noticingTooLong(ChatModel model, java.util.concurrent.atomic.AtomicReference<ModelException> tooLong) {
    return (request, listener, cancellation) -> {
      try {
        return model.stream(request, listener, cancellation);
      } catch (ModelException e) {
        if (e.kind() == ModelException.Kind.CONTEXT_TOO_LONG) {
          tooLong.set(e);
        }
        throw e;
      }
    };
  }

  /** What an exec user can do about a conversation too long for the model, with the commands spelt out. */
  static String tooLongAdvice(String session, String tab) {
    String which = "--session " + session + (tab == null ? "" : " --tab " + tab);
    return ". The session is kept: go on from an earlier, shorter point with `waymark exec " + which + " --from N "
        + "PROMPT` (`waymark checkpoints list " + which + "` shows the checkpoints), open it with `waymark --resume "
        + session + "` and /compact it there, or start a new session by leaving out --session.";
  }

  private static dev.waymark.core.protocol.Command ask(Console console, Event.ToolCallProposed proposed) {
    while (true) {
      String answer = console.readLine("Allow %s %s? [y]es, [a]lways this session, [n]o: ",
          proposed.call().name(), proposed.summary());
      if (answer == null) {
        return new dev.waymark.core.protocol.Command.Deny(proposed.call().id(), "no answer");
      }
      switch (answer.trim().toLowerCase(java.util.Locale.ROOT)) {
        case "y":
        case "yes":
          return new dev.waymark.core.protocol.Command.Approve(proposed.call().id(), false);
        case "a":
        case "always":
          return new dev.waymark.core.protocol.Command.Approve(proposed.call().id(), true);
        case "n":
        case "no":
          return new dev.waymark.core.protocol.Command.Deny(proposed.call().id(), "");
        default:
          break;
      }
    }
  }

  static String describe(CheckpointView checkpoint) {
    if (!checkpoint.changedFiles()) {
      return "checkpoint #" + checkpoint.number() + ": no files changed";
    }
    return "checkpoint #" + checkpoint.number() + ": " + checkpoint.changedPaths().size() + " file(s) changed, tag "
        + checkpoint.tag().orElse("(none)");
  }

  /** A shell command's list of what it changed that undo will not restore: a script must see it, not only the model. */
  static List<String> notRecorded(String result) {
    String header = "Changed but not recorded (undo will not restore them):";
    int at = result.indexOf(header);
    if (at < 0) {
      return List.of();
    }
    List<String> lines = new ArrayList<>(List.of("    " + header));
    List<String> listed = result.substring(at + header.length()).lines().skip(1)
        .takeWhile(line -> line.startsWith("  ")).toList();
    int shown = Math.min(listed.size(), NOT_RECORDED_SHOWN);
    listed.subList(0, shown).forEach(line -> lines.add("    " + line));
    if (listed.size() > shown) {
      lines.add("      … and " + (listed.size() - shown) + " more");
    }
    return lines;
  }

  private static final int NOT_RECORDED_SHOWN = 10;

  private static String firstLine(String text) {
    int newline = text.indexOf('\n');
    String line = newline < 0 ? text : text.substring(0, newline) + " …";
    return line.length() > 200 ? line.substring(0, 200) + " …" : line;
  }
}
