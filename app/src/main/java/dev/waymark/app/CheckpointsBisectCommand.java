package dev.waymark.app;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.bisect.BisectResult;
import dev.waymark.core.bisect.BisectStep;
import dev.waymark.core.bisect.Bisection;
import dev.waymark.core.checkpoint.ChangeDiffs;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointDiff;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.session.SessionException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code waymark checkpoints bisect --run CMD [--good A] [--bad B]}: the first checkpoint on the path
 * from A to B where CMD fails, each tested in the sandbox on a throw-away layer (see
 * {@link Bisection}); the project's files are never touched, and the tab does not move.
 */
@CommandLine.Command(name = "bisect", mixinStandardHelpOptions = true,
    description = {"Find the first checkpoint on the path from --good to --bad where CMD fails.",
        "CMD runs in the sandbox on a throw-away copy-on-write layer holding each checkpoint's files: the project's "
            + "files are never touched. Its exit status says, as for git bisect run: 0 good, 125 cannot test (skip), "
            + "1-127 bad, 128 or more stops.",
        "Exit status: 0 the first bad checkpoint was found, 1 none was (CMD never fails, fails at --good, skipped "
            + "ones leave it open, it stopped, or bisect cannot run here), 2 bad arguments."})
final class CheckpointsBisectCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @CommandLine.ParentCommand CheckpointsCommand checkpoints;

  @Option(names = "--run", required = true, paramLabel = "CMD", description = "The command (run by /bin/sh -c).")
  String command;

  @Option(names = "--good", paramLabel = "A", description = "A checkpoint where CMD passes (default: the start of the "
      + "live path, #0).")
  String good;

  @Option(names = "--bad", paramLabel = "B", description = "A checkpoint where CMD fails, descending from A (default: "
      + "the live one).")
  String bad;

  @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600",
      description = "How long one run may take; longer stops the bisect (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(names = "--session", paramLabel = "ID", description = "The session (id or name; default: the last saved).")
  String sessionId;

  @Option(names = "--tab", paramLabel = "ID", description = "The tab (default: the session's active tab, else its first open one).")
  String tabId;

  @Option(names = "--json", description = "Print JSON for scripts (the steps go to stderr as they are taken).")
  boolean json;

  @Option(names = {"-C", "--directory"}, paramLabel = "DIR", description = "The project directory (default: the current one).")
  Path directory = Path.of("");

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    OptionalInt from = number(good, "--good");
    OptionalInt to = number(bad, "--bad");
    if (timeoutSeconds <= 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--timeout takes a number of seconds above 0.");
    }
    Invocation main = checkpoints.main;
    Map<String, String> env = main.env();
    Settings settings;
    try {
      settings = Settings.resolve(env, directory.toAbsolutePath()).settings();
    } catch (Settings.BadSettings e) {
      err.println("waymark: " + e.getMessage());
      return 2;
    }
    ShellSandbox sandbox = settings.sandbox(main.home(), env);
    // read only: a bisect moves nothing, so the interface may hold the tab meanwhile
    try (HeadlessTab opening = HeadlessTab.open(directory, main.home(), sessionId, tabId)) {
      ShadowStore store = opening.store;
      TabSession tab = opening.openTab(true, err);
      Bisection bisection;
      try {
        bisection = Bisection.open(BisectSetups.of(store, settings, sandbox, env, Duration.ofSeconds(timeoutSeconds)));
      } catch (Bisection.Unavailable e) {
        err.println("waymark: cannot bisect: " + e.getMessage() + ".");
        return 1;
      }
      TreeSnapshot tree = tab.snapshot().tree();
      BisectResult result = bisection.run(tree, from, to, command, new Bisection.Progress() {
        @Override
        public void tested(BisectStep step) {
          err.println(BisectLines.step(step));
          err.flush();
        }
      });
      Map<Integer, String> prompts = prompts(tab);
      CheckpointDiff diff = null;
      if (result.firstBad().isPresent()) {
        Checkpoint found = tree.checkpoints().stream().filter(c -> c.number() == result.firstBad().getAsInt())
            .findFirst().orElseThrow();
        diff = ChangeDiffs.of(found, store::readBlob);
      }
      if (json) {
        out.println(JsonOutput.JSON.writeValueAsString(json(result, tab, prompts, diff, opening.sameTab(directory))));
      } else {
        BisectLines.result(result, prompts, diff, opening.sameTab(directory)).forEach(out::println);
      }
      return result.found() ? 0 : 1;
    } catch (SessionException e) {
      err.println("waymark: " + e.getMessage());
      return 1;
    }
  }

  /** Each checkpoint's prompt, as the tab lists them. */
  private static Map<Integer, String> prompts(TabSession tab) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    tab.submit(new Command.List());
    tab.idle().get(60, TimeUnit.SECONDS);
    Map<Integer, String> prompts = new HashMap<>();
    for (Event event : events) {
      if (event instanceof Event.CheckpointsListed listed) {
        for (CheckpointSummary c : listed.checkpoints()) {
          prompts.put(c.number(), c.prompt());
        }
      }
    }
    return prompts;
  }

  private Map<String, Object> json(BisectResult result, TabSession tab, Map<Integer, String> prompts, CheckpointDiff diff,
      String sameTab) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("outcome", result.outcome().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    o.put("message", result.message());
    o.put("tab", tab.snapshot().tree().tabId());
    o.put("command", command);
    o.put("path", result.path());
    o.put("firstBad", result.firstBad().isPresent() ? result.firstBad().getAsInt() : null);
    o.put("candidates", result.candidates());
    List<Map<String, Object>> steps = new ArrayList<>();
    for (BisectStep step : result.steps()) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("checkpoint", step.checkpoint());
      s.put("verdict", step.verdict().name().toLowerCase(Locale.ROOT));
      s.put("exit", step.exitStatus());
      s.put("layerFiles", step.written());
      s.put("layerDeleted", step.deleted());
      s.put("prepareMillis", step.prepareMillis());
      s.put("runMillis", step.runMillis());
      s.put("output", step.outputTail());
      steps.add(s);
    }
    o.put("steps", steps);
    if (result.firstBad().isPresent()) {
      int n = result.firstBad().getAsInt();
      o.put("prompt", prompts.getOrDefault(n, ""));
      List<Map<String, Object>> files = new ArrayList<>();
      for (CheckpointDiff.FileDiff f : diff.files()) {
        files.add(Map.of("path", f.path(), "added", f.added(), "removed", f.removed(), "binary", f.binary(),
            "unified", f.unified()));
      }
      o.put("files", files);
      o.put("revert", BisectLines.revert(n, sameTab));
    }
    return o;
  }

  private OptionalInt number(String word, String option) {
    if (word == null) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(word.startsWith("#") ? word.substring(1) : word));
    } catch (NumberFormatException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "Not a checkpoint number for " + option + ": \"" + word
          + "\".");
    }
  }
}
