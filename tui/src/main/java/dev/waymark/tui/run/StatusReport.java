package dev.waymark.tui.run;

import dev.waymark.core.protocol.TokenUsage;
import dev.waymark.tui.command.ModeText;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.tab.TabController;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code /status} says: provider, model, server, mode, sandbox, how commands' changes are
 * found, and the tokens and cost of the session.
 */
public final class StatusReport {
  private StatusReport() {}

  /** The report for {@code tab} (number {@code number}) among {@code every} tab of the session, closed ones too. */
  public static String render(RunInfo run, TabController tab, int number, List<TabController> every) {
    List<String> lines = new ArrayList<>();
    lines.add("Status of tab " + number);
    // what --tab names on the command line (waymark shell, checkpoints): the tab bar shows numbers
    lines.add(row("tab id", tab.state().tabId()));
    lines.add(row("provider", run.provider() + (run.baseUrl().isEmpty() ? "" : " · " + run.baseUrl())));
    lines.add(row("model", tab.model()));
    lines.add(row("mode", ModeText.describe(tab.mode())));
    lines.add(row("sandbox", run.sandbox().isEmpty() ? "unknown" : run.sandbox()));
    String commands = commands(run);
    if (!commands.isEmpty()) {
      lines.add(row("commands", commands));
    }
    if (tab.state().contextUsed().isPresent()) {
      var used = tab.state().contextUsed().get();
      lines.add(row("context", (used.estimated() ? "about " : "") + count(used.tokens()) + " tokens"
          + (used.percent().isPresent() ? ", " + used.percent().getAsInt() + "% of the model's " + count(used.window())
              + "-token window" : " (the model's window is unknown: see contextWindows in settings)")));
    } else {
      tab.state().lastUsage().ifPresent(u -> lines.add(row("context", count(u.inputTokens())
          + " tokens sent in the tab's last model call")));
    }
    Map<String, TokenUsage> mine = tab.state().tokensByModel();
    Map<String, TokenUsage> session = new LinkedHashMap<>();
    for (TabController t : every) {
      t.state().tokensByModel().forEach((model, used) -> session.merge(model, used, TokenUsage::plus));
    }
    lines.add(row("this tab", tokens(mine) + cost(run, mine)));
    lines.add(row("session", tokens(session) + cost(run, session) + " (" + every.size()
        + (every.size() == 1 ? " tab" : " tabs") + ", since Waymark started)"));
    if (!session.isEmpty() && run.prices().isEmpty()) {
      lines.add("  No prices are set, so no cost is shown: add \"prices\" to settings, e.g. "
          + "{\"gpt-4.1-mini\": {\"input\": 0.4, \"output\": 1.6}} in dollars per million tokens.");
    }
    return String.join("\n", lines);
  }

  private static String commands(RunInfo run) {
    try {
      return run.commands().get();
    } catch (RuntimeException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  private static String row(String name, String value) {
    return String.format("  %-9s %s", name, value);
  }

  static String tokens(Map<String, TokenUsage> used) {
    TokenUsage all = new TokenUsage(0, 0);
    for (TokenUsage u : used.values()) {
      all = all.plus(u);
    }
    return count(all.inputTokens()) + " tokens in" + (all.cacheReadTokens() == 0 ? ""
        : " (" + count(all.cacheReadTokens()) + " read from the prompt cache)") + ", " + count(all.outputTokens()) + " out";
  }

  /** " · $0.0123", with the models that have no price named; "" when no model used has one. */
  static String cost(RunInfo run, Map<String, TokenUsage> used) {
    double dollars = 0;
    boolean priced = false;
    List<String> unpriced = new ArrayList<>();
    for (var entry : used.entrySet()) {
      RunInfo.ModelPrice price = run.prices().get(entry.getKey());
      if (price == null) {
        unpriced.add(entry.getKey());
      } else {
        priced = true;
        dollars += price.cost(entry.getValue().inputTokens(), entry.getValue().outputTokens());
      }
    }
    if (!priced) {
      return "";
    }
    return String.format(Locale.ROOT, " · $%.4f", dollars)
        + (unpriced.isEmpty() ? "" : " (no price for " + String.join(", ", unpriced) + ")");
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
