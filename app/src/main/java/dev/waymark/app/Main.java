package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;
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
      "Without a command, opens the full-screen interface on DIR (default: the current directory).",
      "Every prompt makes a checkpoint you can browse, undo, redo and branch from; F1 shows the keys.",
      "",
      "Environment: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL,",
      "WAYMARK_HOME (where checkpoints and logs live), XDG_CONFIG_HOME (settings.json: key bindings).",
    },
    subcommands = {ExecCommand.class, SessionsCommand.class, CheckpointsCommand.class, StoreCommand.class,
        CommandLine.HelpCommand.class})
public final class Main implements java.util.concurrent.Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ModelOptions options;

  @CommandLine.Parameters(arity = "0..1", paramLabel = "DIR", description = "The project directory (default: the current one).")
  java.nio.file.Path directory;

  @CommandLine.Option(names = "--continue", description = "Reopen this project's last session.")
  boolean continueLast;

  @CommandLine.Option(names = "--resume", arity = "0..1", fallbackValue = "", paramLabel = "ID",
      description = "Open a saved session by id or name; without one, choose from a list.")
  String resume;

  @CommandLine.Option(names = "--demo", description = "Try Waymark on a small sample project with a scripted model: no key, no network.")
  boolean demo;

  private final WaymarkHome home;

  Main(WaymarkHome home) {
    this.home = home;
  }

  WaymarkHome home() {
    return home;
  }

  public static void main(String[] args) {
    WaymarkHome home = WaymarkHome.fromEnvironment();
    Logging.start(home);
    System.exit(run(args, home, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  static int run(String[] args, WaymarkHome home, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new Main(home));
    cli.setOut(out);
    cli.setErr(err);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      if (e instanceof CheckpointException) {
        err.println("waymark: " + e.getMessage());
      } else {
        org.slf4j.LoggerFactory.getLogger(Main.class).error("command failed", e);
        err.println("waymark: " + e + " (details in " + home.logsDir().resolve("waymark.log") + ")");
      }
      return 1;
    });
    return cli.execute(args);
  }

  @Override
  public Integer call() throws Exception {
    CommandLine cli = spec.commandLine();
    java.nio.file.Path project;
    try {
      project = UiLauncher.project(directory == null ? java.nio.file.Path.of("") : directory);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cli, e.getMessage());
    }
    java.util.Map<String, String> env = System.getenv();
    Settings settings;
    dev.waymark.tui.terminal.KeyMap keys;
    try {
      settings = Settings.load(env, project);
      keys = dev.waymark.tui.terminal.KeyMap.defaults().withOverrides(settings.keyBindings());
    } catch (Settings.BadSettings | IllegalArgumentException e) {
      cli.getErr().println("waymark: " + e.getMessage());
      return 2;
    }
    dev.waymark.core.tool.ApprovalMode approval = options.approvalMode(settings, env, cli);
    if (System.console() == null) {
      cli.getErr().println("waymark: the interface needs a terminal; for scripts use `waymark exec PROMPT`.");
      return 2;
    }
    if (continueLast && resume != null) {
      throw new CommandLine.ParameterException(cli, "Use either --continue or --resume, not both.");
    }
    java.util.List<String> welcome = new java.util.ArrayList<>();
    Providers.Choice choice;
    if (demo) {
      Demo.Prepared prepared = Demo.prepare();
      project = prepared.project();
      choice = new Providers.Choice("scripted", "demo", null, null, prepared.script());
      welcome.addAll(Demo.welcome(project));
    } else if (Providers.nothingConfigured(options, settings, env)) {
      choice = Providers.unconfigured();
      welcome.addAll(Providers.welcome());
    } else {
      choice = options.choose(settings, env, cli);
    }
    UiLauncher.Opening opening = new UiLauncher.Opening(continueLast, java.util.Optional.ofNullable(resume));
    return UiLauncher.run(project, home, settings, choice, approval, keys, opening, welcome, cli.getErr());
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
