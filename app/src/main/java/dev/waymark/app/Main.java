package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.workspace.GivenNow;
import dev.waymark.tui.terminal.KeyMap;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code waymark} command. */
@Command(
    name = "waymark",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = {
      "Waymark: a terminal coding agent built around checkpoints.",
      "",
      "Without a command, opens the full-screen interface on DIR (default: the current directory). Every "
          + "prompt makes a checkpoint you can browse, undo, redo and branch from; F1 shows the keys.",
      "",
      "Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, WAYMARK_HOME "
          + "(where checkpoints and logs live), XDG_CONFIG_HOME (settings.json: key bindings).",
    },
    subcommands = {ExecCommand.class, SessionsCommand.class, CheckpointsCommand.class, ShellCommand.class, StoreCommand.class, McpCommand.class,
        CommandLine.HelpCommand.class})
public final class Main implements Callable<Integer>, Invocation {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ModelOptions options;

  @CommandLine.Parameters(arity = "0..1", paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory;

  @CommandLine.Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory, as DIR.")
  Path directoryOption;

  @CommandLine.Option(names = "--continue", description = "Reopen this project's last session.")
  boolean continueLast;

  @CommandLine.Option(names = "--resume", arity = "0..1", fallbackValue = "", paramLabel = "ID",
      description = "Open a saved session by id or name; without one, choose from a list filtered as you type.")
  String resume;

  @CommandLine.Option(names = "--fork", description = "With --continue or --resume: open a copy of the session as a new "
      + "one (its tabs and checkpoints under new ids), the original left as it is; a session open in another Waymark is "
      + "offered so anyway.")
  boolean fork;

  @CommandLine.Option(names = "--demo", description = "Try Waymark on a small sample project with a scripted model: no key, no network.")
  boolean demo;

  private final WaymarkHome home;
  private final Map<String, String> env;
  private final Stdin stdin;

  Main(WaymarkHome home) {
    this(home, System.getenv());
  }

  Main(WaymarkHome home, Map<String, String> env) {
    this(home, env, Stdin.ofProcess());
  }

  Main(WaymarkHome home, Map<String, String> env, Stdin stdin) {
    this.home = home;
    this.env = env;
    this.stdin = stdin;
  }

  @Override
  public Stdin stdin() {
    return stdin;
  }

  @Override
  public Map<String, String> env() {
    return env;
  }

  @Override
  public WaymarkHome home() {
    return home;
  }

  public static void main(String[] typed) {
    Utf8Locale.relaunchIfNeeded(typed).ifPresent(System::exit);
    String[] args = Utf8Locale.arguments(typed);
    WaymarkHome home = WaymarkHome.fromEnvironment();
    Logging.start(home);
    System.exit(run(args, home, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  static int run(String[] args, WaymarkHome home, PrintWriter out, PrintWriter err) {
    return run(args, home, out, err, System.getenv());
  }

  static int run(String[] args, WaymarkHome home, PrintWriter out, PrintWriter err, Map<String, String> env) {
    return run(args, home, out, err, env, Stdin.ofProcess());
  }

  static int run(String[] args, WaymarkHome home, PrintWriter out, PrintWriter err, Map<String, String> env,
      Stdin stdin) {
    CommandLine cli = new CommandLine(new Main(home, env, stdin));
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      // Messages are for users: Waymark's own exceptions say what happened; anything else is
      // logged in full and named only by its message, never by a Java class.
      if (e instanceof CheckpointException || e instanceof SessionException
          || e instanceof ModelException) {
        err.println("waymark: " + e.getMessage());
      } else {
        LoggerFactory.getLogger(Main.class).error("command failed", e);
        err.println("waymark: unexpected error" + (e.getMessage() == null ? "" : ": " + e.getMessage().lines().findFirst().orElse(""))
            + " (details in " + home.logsDir().resolve("waymark.log") + ")");
      }
      return 1;
    });
    CommandLine.IParameterExceptionHandler parseErrors = cli.getParameterExceptionHandler();
    cli.setParameterExceptionHandler((e, arguments) -> {
      if (e.getClass() != CommandLine.ParameterException.class) {
        return parseErrors.handleParseException(e, arguments); // a word picocli could not place: the usage helps
      }
      // Waymark's own refusal (no key, two flags that exclude each other): the reason is the answer, and
      // a whole usage after it would bury it
      err.println("waymark: " + e.getMessage() + " (" + e.getCommandLine().getCommandSpec().qualifiedName()
          + " --help shows the options)");
      return 2;
    });
    cli.setExecutionStrategy(parsed -> {
      String misplaced = beforeTheCommand(parsed);
      if (misplaced != null) {
        err.println("waymark: '" + misplaced + "' before the command would be ignored: put it after the command, the "
            + "project as -C DIR (waymark " + parsed.subcommand().commandSpec().name() + " --help)");
        return 2;
      }
      return new CommandLine.RunLast().execute(parsed);
    });
    return cli.execute(directoryAfterTheCommand(args, cli.getSubcommands().keySet()));
  }

  /**
   * {@code waymark -C DIR exec …} as {@code waymark exec -C DIR …}: {@code git -C} and {@code make -C}
   * take the directory first, so a user's hands will. Only a lone {@code -C DIR} right before a
   * command that takes one moves; anything else before a command is refused as before.
   */
  static String[] directoryAfterTheCommand(String[] args, Set<String> commands) {
    if (args.length < 3 || !List.of("-C", "--directory").contains(args[0]) || !commands.contains(args[2])
        || args[2].equals("help")) {
      return args;
    }
    List<String> rest = List.of(args).subList(3, args.length);
    if (rest.stream().anyMatch(a -> a.equals("-C") || a.startsWith("--directory"))) {
      return args; // two directories: refused below, naming what came before the command
    }
    List<String> moved = new ArrayList<>(List.of(args[2], "-C", args[1]));
    moved.addAll(rest);
    return moved.toArray(String[]::new);
  }

  /**
   * What was given to {@code waymark} itself before a command (a directory, a model or approval
   * option), which the command would not see; null when nothing was. Running an agent in the
   * current directory, or with another approval than the one typed, must not happen silently.
   */
  private static String beforeTheCommand(CommandLine.ParseResult parsed) {
    if (!parsed.hasSubcommand() || parsed.isUsageHelpRequested() || parsed.isVersionHelpRequested()
        || parsed.matchedArgs().isEmpty()) {
      return null;
    }
    List<String> original = parsed.originalArgs();
    int command = original.indexOf(parsed.subcommand().commandSpec().name());
    return String.join(" ", original.subList(0, Math.max(0, command)));
  }

  @Override
  public Integer call() throws Exception {
    CommandLine cli = spec.commandLine();
    Path project;
    try {
      if (directory != null && directoryOption != null) {
        throw new IllegalArgumentException("Give the project once: as DIR or as -C DIR, not both.");
      }
      if (directory != null && !Files.exists(directory) && directory.toString().matches("(?s).*\\s.*")) {
        // `claude "say hello"` habits: a prompt where the directory goes
        cli.getErr().println("waymark: " + ShellWords.quoted(directory.toString()) + " is no directory here. To give it to the "
            + "agent: waymark exec " + ShellWords.quoted(directory.toString()) + " (headless), or start waymark and type it.");
        return 2;
      }
      Path given = directory != null ? directory : directoryOption;
      project = UiLauncher.project(given == null ? Path.of("") : given);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cli, e.getMessage());
    }
    Settings settings;
    Permissions permissions;
    KeyMap keys;
    List<String> warnings = new ArrayList<>();
    try {
      Settings.Loaded loaded = options.settings(env, project);
      if (loaded.warning().isPresent() && System.console() != null && !demo && askTrust(loaded.warning().get() + SkillFiles.untrustedNote(env, project), project)) {
        Settings.trust(env, project);
        loaded = Settings.resolve(env, project);
      }
      loaded.warning().ifPresent(warnings::add);
      settings = loaded.settings();
      permissions = loaded.permissions(env, project);
      keys = KeyMap.defaults().withOverrides(settings.keyBindings());
    } catch (Settings.BadSettings | IllegalArgumentException e) {
      cli.getErr().println("waymark: " + e.getMessage());
      return 2;
    }
    ApprovalMode approval = options.approvalMode(settings, env, cli);
    ShellSandbox sandbox = settings.sandbox(home, env);
    if (System.console() == null) {
      cli.getErr().println("waymark: the interface needs a terminal; for scripts use `waymark exec PROMPT`.");
      return 2;
    }
    if (continueLast && resume != null) {
      throw new CommandLine.ParameterException(cli, "Use either --continue or --resume, not both.");
    }
    if (fork && !continueLast && resume == null) {
      throw new CommandLine.ParameterException(cli, "--fork goes with --continue or --resume: it copies a saved session.");
    }
    List<String> welcome = new ArrayList<>();
    Providers.Choice choice;
    if (demo) {
      Demo.Prepared prepared;
      try {
        prepared = continueLast || resume != null ? Demo.last(home) : Demo.prepare(home);
      } catch (IllegalStateException e) {
        cli.getErr().println("waymark: " + e.getMessage());
        return 1;
      }
      project = prepared.project();
      choice = new Providers.Choice("scripted", "demo", "demo", null, null, prepared.script(), 0, 0, null, null);
      if (!continueLast && resume == null) {
        welcome.addAll(Demo.welcome(project));
      }
      int status = UiLauncher.run(project, home, settings, Permissions.none(), choice, approval, keys,
          new UiLauncher.Opening(continueLast, Optional.ofNullable(resume), "waymark --demo --continue",
              GivenNow.NOTHING), welcome,
          List.of(), cli.getErr(), sandbox);
      cli.getErr().println("waymark: the demo project stays in " + project + " (delete it when you are done).");
      return status;
    } else if (Providers.nothingConfigured(options, settings, env)) {
      choice = Providers.unconfigured();
      welcome.addAll(Providers.welcome());
    } else {
      choice = options.choose(settings, env, cli);
    }
    UiLauncher.Opening opening = new UiLauncher.Opening(continueLast, Optional.ofNullable(resume))
        .given(options.givenNow()).forked(fork);
    return UiLauncher.run(project, home, settings, permissions, choice, approval, keys, opening, welcome, warnings,
        cli.getErr(), sandbox);
  }

  /** The one-time question, on the terminal before the interface opens: trust this project's settings? */
  private static boolean askTrust(String warning, Path project) {
    Console console = System.console();
    console.writer().println("waymark: " + warning);
    String answer = console.readLine("Trust %s and use all of its settings from now on? [y/N] ", project);
    return answer != null && List.of("y", "yes").contains(answer.trim().toLowerCase(Locale.ROOT));
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties properties = new Properties();
      try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      }
      return new String[] {"waymark " + properties.getProperty("version", "unknown")};
    }
  }
}
