package dev.waymark.tui.run;

import dev.waymark.core.bisect.BisectResult;
import dev.waymark.core.bisect.BisectStep;
import dev.waymark.core.bisect.Bisection;
import dev.waymark.core.checkpoint.ChangeDiffs;
import dev.waymark.core.checkpoint.CheckpointDiff;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.chat.TabState;
import dev.waymark.tui.command.SlashCommand;
import dev.waymark.tui.keys.Host;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.text.Line;
import dev.waymark.tui.text.Tone;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code /bisect}: runs on a thread of its own, from the tab's snapshot (the tab stays usable, and
 * nothing it does moves the files a bisect tests: each checkpoint is seen through a throw-away
 * layer), and reports each step and the result in the tab's chat; the first bad checkpoint's diff
 * opens in a panel, with the {@code /revert} that takes it back.
 */
final class BisectRunner {
  private final Workspace workspace;
  private final Host host;
  private final AtomicBoolean running = new AtomicBoolean();

  BisectRunner(Workspace workspace, Host host) {
    this.workspace = workspace;
    this.host = host;
  }

  void start(TabController tab, SlashCommand.Parsed.Bisect asked) {
    TabState state = tab.state();
    if (!running.compareAndSet(false, true)) {
      state.notice(Tone.ERROR, "✗ A bisect is running already; its result comes in the tab that started it.");
      return;
    }
    TreeSnapshot tree = tab.session().snapshot().tree();
    Map<Integer, String> prompts = new HashMap<>();
    state.livePathPrompts().forEach(p -> prompts.put(p.checkpoint(), p.prompt()));
    state.notice(Tone.MUTED, "Bisecting with `" + asked.command() + "`: each checkpoint is tested in the sandbox on a "
        + "throw-away layer; the files here are not touched.");
    Thread thread = new Thread(() -> {
      try {
        run(tab, asked, tree, prompts);
      } catch (RuntimeException e) {
        host.later(() -> state.notice(Tone.ERROR, "✗ The bisect failed: " + e.getMessage()));
      } finally {
        running.set(false);
      }
    }, "waymark-bisect");
    thread.setDaemon(true);
    thread.start();
  }

  private void run(TabController tab, SlashCommand.Parsed.Bisect asked, TreeSnapshot tree,
      Map<Integer, String> prompts) {
    TabState state = tab.state();
    Bisection bisection;
    try {
      bisection = workspace.bisection().open();
    } catch (Bisection.Unavailable e) {
      host.later(() -> state.notice(Tone.ERROR, "✗ Cannot bisect: " + e.getMessage() + "."));
      return;
    }
    BisectResult result = bisection.run(tree, asked.good(), asked.bad(), asked.command(), new Bisection.Progress() {
      @Override
      public void tested(BisectStep step) {
        host.later(() -> state.notice(Tone.MUTED, "  #" + step.checkpoint() + " " + step.verdict().name()
            .toLowerCase(Locale.ROOT) + " (exit " + step.exitStatus() + ", layer made in " + step.prepareMillis() + " ms)"));
      }
    });
    if (result.firstBad().isEmpty()) {
      host.later(() -> state.notice(result.outcome() == BisectResult.Outcome.REFUSED
          || result.outcome() == BisectResult.Outcome.ABORTED ? Tone.ERROR : Tone.WARNING, result.message()));
      return;
    }
    int n = result.firstBad().getAsInt();
    CheckpointDiff diff;
    try {
      diff = ChangeDiffs.of(tree.checkpoints().stream().filter(c -> c.number() == n).findFirst().orElseThrow(),
          workspace.store()::readBlob);
    } catch (IOException e) {
      diff = new CheckpointDiff(n, List.of());
    }
    String prompt = prompts.getOrDefault(n, "").strip().lines().findFirst().orElse("");
    String said = result.message() + (prompt.isEmpty() ? "" : "\nPrompt of #" + n + ": " + prompt)
        + "\n/revert " + n + " takes it back and keeps the later changes.";
    List<String> lines = new ArrayList<>(List.of(said.split("\n")));
    lines.add("");
    lines.addAll(diff.isEmpty() ? List.of("#" + n + " changed no files.") : diff.unified().lines().toList());
    host.later(() -> {
      state.notice(Tone.ACCENT, said);
      host.showPanel("Bisect: #" + n + " is the first bad checkpoint", width -> lines.stream().map(Line::plain).toList());
    });
  }
}
