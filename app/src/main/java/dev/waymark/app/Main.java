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
      "Built so far: the checkpoint store. The agent and the full-screen interface are not built yet.",
    },
    subcommands = {ExecCommand.class, StoreCommand.class, CommandLine.HelpCommand.class})
public final class Main implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

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
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
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
