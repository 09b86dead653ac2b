package dev.waymark.app;

import dev.waymark.core.Counted;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.mcp.McpInput;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.HttpOptions;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.skill.SkillCatalog;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
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
      "Exit status: 0 when the turn finished, 1 when it failed or a tool call's file changes could not be applied or "
          + "recorded (one line on stderr says why), 2 for bad "
          + "arguments, 3 when a UserPromptSubmit hook blocked the prompt (it was not sent; a new session is not kept), "
          + "130 when interrupted.",
      "",
      "Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, WAYMARK_HOME "
          + "(where checkpoints and logs live)."
    })
final class ExecCommand implements Callable<Integer> {
  /** How long Ctrl-C waits for the cancelled turn to store its checkpoint before the JVM halts. */
  private static final Duration INTERRUPT_GRACE = Duration.ofSeconds(10);
  /** The exit status of a prompt a UserPromptSubmit hook blocked: a policy's refusal, not Ctrl+C's 130. */
  static final int PROMPT_BLOCKED = 3;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand Invocation main;

  @CommandLine.Mixin ModelOptions options;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Option(names = "--session", paramLabel = "ID",
      description = "Continue a saved session (id or name) instead of starting a new one.")
  String sessionId;

  @Option(names = "--fork", description = "With --session: go on in a copy of the session as a new one, the original left as it is (one open in another Waymark).")
  boolean fork;

  @Option(names = "--tab", paramLabel = "ID", description = "With --session: the tab to continue (default: its active tab, else its first open one).")
  String tabId;

  @Option(names = "--from", paramLabel = "N",
      description = "With --session: branch from checkpoint N (files and conversation go back there first) instead of going on from live.")
  Integer from;

  @Option(names = "--force", description = "With --from: where files changed since clash with #N, overwrite them "
      + "anyway (what they held is kept under a rescued tag).")
  boolean force;

  @Option(names = "--isolated", description = "Run the prompt in a new isolated tab: it works on a copy-on-write view "
      + "of the project, which does not change until you land it (waymark checkpoints land); needs layers (bwrap and overlay).")
  boolean isolated;

  @Option(names = "--json", description = "Write every event of the turn to stdout as one JSON object per line "
      + "(schema in the README, version field \"v\") instead of the answer as text.")
  boolean json;

  @Option(names = "--output-last-message", paramLabel = "FILE",
      description = "Also write the model's final answer (its last message's text) to FILE.")
  Path lastMessageFile;

  @Parameters(arity = "0..*", paramLabel = "PROMPT", description = "What to ask; several words are joined with spaces. "
      + "`-`, or none with standard input not a terminal, reads the prompt from standard input.")
  List<String> prompt = List.of();

  /** The most a prompt read from standard input may be: a script piping a whole log in by mistake is told so. */
  static final int MAX_STDIN_PROMPT = 1024 * 1024;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (lastMessageFile != null) {
      // checked before the turn runs: a model paid for and an answer lost for a typo in a path would be worse
      Path folder = lastMessageFile.toAbsolutePath().getParent();
      if (folder == null || !Files.isDirectory(folder) || Files.isDirectory(lastMessageFile)) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--output-last-message " + lastMessageFile + ": "
            + (Files.isDirectory(lastMessageFile) ? "that is a directory" : "its directory does not exist") + ".");
      }
    }
    String text;
    try {
      text = promptText(prompt, main.stdin());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    Map<String, String> env = main.env();
    if (force && from == null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--force goes with --from: it overwrites what clashes "
          + "with the checkpoint a branch starts from.");
    }
    Settings settings;
    Permissions permissions;
    try {
      Settings.Loaded loaded = options.settings(env, directory.toAbsolutePath());
      loaded.warning().ifPresent(warning -> err.println("waymark: " + warning));
      settings = loaded.settings();
      permissions = loaded.permissions(env, directory.toAbsolutePath());
    } catch (Settings.BadSettings e) {
      err.println("waymark: " + e.getMessage());
      return 2;
    }
    ApprovalMode mode = options.approvalMode(settings, env, spec.commandLine());
    ShellSandbox sandbox = settings.sandbox(main.home(), env);
    sandbox.notice().ifPresent(notice -> err.println("waymark: " + notice));
    Providers.Choice choice = options.choose(settings, env, spec.commandLine());
    Console console = System.console();
    boolean interactive = console != null && mode != ApprovalMode.YOLO;

    // On Ctrl-C the JVM halts as soon as its shutdown hooks return: the hook cancels the turn and
    // then waits until the turn's checkpoint is stored and the store closed, so nothing is lost.
    CountDownLatch ended = new CountDownLatch(1);
    try (ShadowStore store = ShadowStore.open(directory.toAbsolutePath(), main.home(), settings.retentionPolicy(),
        settings.exclusions());
        McpServers mcp = Workspaces.mcp(settings, directory.toAbsolutePath(), env)) {
      for (String note : store.recovered()) {
        err.println("waymark: " + note);
      }
      store.prepareShellCapture(settings.toolSettings().maxFileSize(), sandbox.bwrap(), !mcp.isEmpty());
      // as in the interface: /SERVER:PROMPT runs a server's prompt, @SERVER:URI attaches a resource; a failure sends nothing
      McpInput mcpInput = new McpInput(mcp);
      if (!mcp.isEmpty() && mcpInput.concerns(text)) {
        McpInput.Expansion expansion = mcpInput.expand(text);
        if (expansion instanceof McpInput.Expansion.Refused refused) {
          err.println("waymark: " + refused.message());
          return 1;
        }
        if (expansion instanceof McpInput.Expansion.Ready ready) {
          ready.notes().forEach(note -> err.println("waymark: " + note));
          text = ready.text();
        }
      }
      BlockingQueue<Event> events = new LinkedBlockingQueue<>();
      // the interface's advice for a conversation too long names /compact; exec words its own
      AtomicReference<ModelException> tooLong = new AtomicReference<>();
      SkillCatalog skills = SkillFiles.of(env, directory.toAbsolutePath());
      var search = settings.webSearch(env);
      search.problem().ifPresent(problem -> err.println("waymark: " + problem));
      Workspace workspace = Workspaces.of(store, choice.provider(),
          () -> noticingTooLong(choice.create(HttpOptions.defaults().withMaxAnswerBytes(settings.answerBytes())), tooLong),
          settings.session(choice.model(), mode, interactive, env), settings.toolSettings().withSandbox(sandbox), permissions,
          mcp, Workspaces.sandboxing(sandbox), skills,
          settings.webAccess(), search.search(), AgentFiles.of(env, directory.toAbsolutePath()), settings.parallelSubagents());
      workspace.skills(skills);
      workspace.hooks(HookFiles.of(env, directory.toAbsolutePath(), sandbox, settings.toolSettings().maxFileSize()));
      workspace.givenNow(options.givenNow()); // --model and --approval win over what the tab saved
      // a save that went unexpectedly (failed, or the session changed elsewhere); the turn goes on
      workspace.onNotice(note -> err.println("waymark: " + note));
      WorkspaceTab chosen;
      if (isolated && sessionId != null) {
        workspace.close();
        throw new CommandLine.ParameterException(spec.commandLine(), "--isolated opens a new tab in a new session; it "
            + "goes without --session (an isolated tab of a session is continued with --session S --tab T).");
      }
      if (sessionId != null) {
        var asked = workspace.files().load(sessionId);
        String tab = tabId != null ? tabId : Workspace.defaultTab(asked).orElse(null);
        if (asked.tabs().stream().noneMatch(t -> t.tabId().equals(tab))) {
          workspace.close();
          throw new CommandLine.ParameterException(spec.commandLine(), "Session "
              + (asked.name() == null ? asked.id() : asked.name() + " (" + asked.id() + ")") + " has no tab " + tabId + " (it has "
              + String.join(", ", asked.tabs().stream().map(SessionFile.Tab::tabId).toList()) + ").");
        }
        ForkChoice.Chosen going;
        try {
          going = ForkChoice.forExec(store, workspace.files(), asked, tab, fork, err); // another Waymark's: --fork
        } catch (SessionException open) {
          workspace.close();
          err.println("waymark: " + open.getMessage());
          return 1;
        }
        var file = going.file();
        String wanted = going.tab();
        // only the tab asked for is locked, so the interface may hold the others; the tab it shows stays the one shown
        Workspace.Opened opened = workspace.open(file, false, wanted::equals);
        opened.notes().forEach(note -> err.println("waymark: " + note));
        chosen = opened.tabs().get(0);
      } else if (isolated && (tabId != null || from != null)) {
        workspace.close();
        throw new CommandLine.ParameterException(spec.commandLine(), "--isolated opens a new tab; it goes without --tab "
            + "and --from.");
      } else if (tabId != null || from != null || fork) {
        workspace.close();
        throw new CommandLine.ParameterException(spec.commandLine(), (tabId != null ? "--tab" : from != null ? "--from" : "--fork")
            + " needs --session.");
      } else if (isolated) {
        try {
          chosen = workspace.newIsolatedTab(sandbox.bwrap());
        } catch (CheckpointException refused) {
          workspace.close();
          err.println("waymark: " + refused.getMessage());
          return 1;
        }
      } else {
        chosen = workspace.newTab();
      }
      TabSession session = chosen.session();
      // the subagents the turn starts work in tabs of their own: their events are told too, tagged with their tab
      workspace.onTabOpened(new SubagentLines(json, out, err, console)::follow);
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
          // the workspace saves the session before the turn, with the prompt as the tab's input: the
          // turn writes ahead to the store from its first tool call, so a process killed at any
          // moment leaves a session that names the tab (its tags come back) and keeps the prompt
          workspace.submit(chosen, List.of(from != null
              ? new dev.waymark.core.protocol.Command.Branch(from, text, force)
              : new dev.waymark.core.protocol.Command.SendPrompt(text)));
          UnaryOperator<String> advice = failure -> {
            ModelException e = tooLong.get();
            return e == null || !failure.startsWith(e.getMessage()) ? failure
                : e.getMessage() + tooLongAdvice(workspace.id(), workspace.tabs().size() > 1 ? chosen.tabId() : null);
          };
          LastMessage last = new LastMessage();
          int status = report(session, events, out, err, console, advice, last);
          session.idle().get(10, TimeUnit.SECONDS);
          if (status == PROMPT_BLOCKED && sessionId == null && !isolated) {
            // the session was saved before the turn, for a prompt never sent: it goes, as if never made
            // (an isolated tab's stays: deleting a session leaves its view behind)
            String made = workspace.id();
            workspace.saveAndClose(); // its saves done, so that none comes after the deletion
            try (Workspace headless = Workspaces.headless(store)) {
              headless.deleteSession(made);
            }
            return status;
          }
          String told = workspace.save(null);
          if (!told.startsWith("Saved session")) {
            err.println("waymark: " + told);
          }
          if (json) {
            out.println(EventLines.session(workspace.id(), chosen.tabId()));
          }
          if (status != 1) { // a failure is one line saying why; the session is saved all the same
            err.println("waymark: session " + workspace.label() + ", tab " + chosen.tabId());
          }
          if (lastMessageFile != null && status == 0) {
            try {
              writeLastMessage(lastMessageFile, last.text());
            } catch (IOException e) {
              err.println("waymark: could not write the last message to " + lastMessageFile + ": " + e.getMessage());
              return 1;
            }
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
  int report(TabSession session, BlockingQueue<Event> events, PrintWriter out, PrintWriter err, Console console,
      UnaryOperator<String> advice, LastMessage last) throws InterruptedException {
    boolean midLine = false;
    String failure = null;
    CheckpointView unchanged = null;
    boolean started = false;
    boolean unrecorded = false; // a tool call's file changes were not applied or recorded: never an exit 0
    boolean blocked = false; // a policy's refusal, which the user did not interrupt
    int compacting = -1; // a checkpoint compacting by itself: the prompt's own turn follows it
    // with --json, stdout gets every event and stderr only what ends the run: its failure or interruption
    PrintWriter activity = json ? new PrintWriter(Writer.nullWriter()) : err;
    while (true) {
      Event event = events.take();
      last.see(event);
      if (json) {
        out.println(EventLines.line(event, session.tabId()));
        out.flush();
      }
      if (event instanceof Event.TurnStarted) {
        started = true; // the workspace saves again, with the prompt in the conversation
      }
      if (event instanceof Event.AssistantDelta delta && (json || delta.checkpoint() == compacting)) {
        continue; // a compaction's summary is no answer: it is in the session, and the JSON has it
      }
      if (event instanceof Event.AssistantDelta delta) {
        out.print(delta.text());
        out.flush();
        midLine = !delta.text().endsWith("\n");
        continue;
      }
      if (midLine && !json) {
        out.println();
        midLine = false;
      }
      if (event instanceof Event.ToolCallProposed proposed) {
        activity.println("> " + proposed.call().name() + " " + proposed.summary());
        if (proposed.needsApproval() && console != null) {
          session.submit(ConsoleApproval.ask(console, proposed, session.ruleFor(proposed.call()).toString()));
        }
      } else if (event instanceof Event.ToolCallFinished finished) {
        activity.println((finished.isError() ? "  ✗ " : "  ✓ ") + firstLine(finished.result()));
        unrecorded |= finished.errorKind().equals(Optional.of(ErrorKind.NOT_RECORDED));
        notRecorded(finished.result()).forEach(activity::println);
      } else if (event instanceof Event.Compacting compaction) {
        compacting = compaction.checkpoint();
        activity.println("waymark: " + compaction.reason());
      } else if (event instanceof Event.Waiting waiting) {
        activity.println("waymark: " + waiting.message());
      } else if (event instanceof Event.Warning warning) {
        activity.println("waymark: " + warning.message());
      } else if (event instanceof Event.PromptBlocked refused) {
        blocked = true;
        err.println("waymark: " + refused.message());
      } else if (event instanceof Event.BranchRefused refused) {
        activity.println("waymark: " + refused.message());
        return 1;
      } else if (event instanceof Event.Error error) {
        failure = advice.apply(error.message());
        if (!started) { // the turn could not even begin (e.g. a branch stopped by clashing edits)
          err.println("waymark: " + failure);
          return 1;
        }
      } else if (event instanceof Event.CheckpointCreated created) {
        if (created.checkpoint().changedFiles()) {
          activity.println(describe(created.checkpoint()));
        } else {
          unchanged = created.checkpoint(); // a failed turn's only line is its reason
        }
      } else if (event instanceof Event.TurnFinished finished && finished.checkpoint() == compacting
          && finished.status() == TurnStatus.DONE) {
        compacting = -1;
        unchanged = null;
        failure = null; // the prompt goes on in the next turn, which says how it ends
      } else if (event instanceof Event.TurnFinished finished) {
        out.flush();
        if (finished.status() == TurnStatus.DONE) {
          if (unchanged != null) {
            activity.println(describe(unchanged));
          }
          if (unrecorded) {
            err.println("waymark: the file changes of a tool call could not be applied or recorded (said above): the "
                + "checkpoint does not hold them");
            err.flush();
            return 1;
          }
          if (failure != null) { // an error in a turn that finished: its checkpoint could not be stored
            err.println("waymark: " + failure);
            err.flush();
            return 1;
          }
          err.flush();
          return 0;
        }
        if (finished.status() == TurnStatus.CANCELLED && blocked) {
          err.flush();
          return PROMPT_BLOCKED;
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

  /** The prompt from the arguments, or from standard input for {@code -} or none when it is not a terminal. */
  static String promptText(List<String> words, Stdin stdin) throws IOException {
    boolean fromStdin = words.equals(List.of("-"));
    if (words.isEmpty()) {
      if (stdin.terminal()) {
        throw new IllegalArgumentException("No prompt: give it as arguments, or pipe it in (`-` reads standard input).");
      }
      fromStdin = true;
    }
    if (!fromStdin) {
      return String.join(" ", words);
    }
    byte[] bytes = stdin.stream().readNBytes(MAX_STDIN_PROMPT + 1);
    if (bytes.length > MAX_STDIN_PROMPT) {
      throw new IllegalArgumentException("The prompt on standard input is over " + MAX_STDIN_PROMPT / 1024
          + " KiB; put the material in a file in the project and ask about it instead.");
    }
    String text = new String(bytes, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      throw new IllegalArgumentException("The prompt on standard input is empty.");
    }
    return text;
  }

  /** Writes the final answer next to {@code file} first and moves it over, so a reader never sees half of it. */
  static void writeLastMessage(Path file, String text) throws IOException {
    Path absolute = file.toAbsolutePath();
    Path temp = absolute.resolveSibling("." + absolute.getFileName() + ".waymark-tmp");
    Files.writeString(temp, text.endsWith("\n") || text.isEmpty() ? text : text + "\n");
    Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }

  /** The text of the model's last answer in the turn: what streamed after its last tool call. */
  static final class LastMessage {
    private final StringBuilder text = new StringBuilder();
    private boolean toolsSince;

    void see(Event event) {
      if (event instanceof Event.TurnStarted) {
        text.setLength(0);
        toolsSince = false;
      } else if (event instanceof Event.ToolCallProposed) {
        toolsSince = true;
      } else if (event instanceof Event.AssistantDelta delta) {
        if (toolsSince) {
          text.setLength(0);
          toolsSince = false;
        }
        text.append(delta.text());
      }
    }

    String text() {
      return text.toString().strip();
    }
  }

  /** {@code model}, recording into {@code tooLong} each failure that says the conversation is too long. */
  static ChatModel noticingTooLong(ChatModel model, AtomicReference<ModelException> tooLong) {
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

  static String describe(CheckpointView checkpoint) {
    if (!checkpoint.changedFiles()) {
      return "checkpoint #" + checkpoint.number() + ": no files changed";
    }
    int bySubagents = checkpoint.subagentPaths().size();
    return "checkpoint #" + checkpoint.number() + ": " + Counted.of(checkpoint.allChangedPaths().size(), "file")
        + " changed" + (bySubagents == 0 ? "" : checkpoint.changedPaths().isEmpty() ? " by its subagents"
            : " (" + bySubagents + " by its subagents)")
        + ", tag " + checkpoint.tag().orElse("(none)");
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
