package dev.waymark.app;

import dev.waymark.core.protocol.Event;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * What {@code exec} tells of the tabs a turn's subagents work in: with {@code --json}, each of their events
 * as a line tagged with its tab; otherwise their tool calls and what went wrong, on standard error, each
 * headed by the tab. A call of theirs that needs approval is asked about on the terminal, as the parent's.
 */
final class SubagentLines {
  private final boolean json;
  private final PrintWriter out;
  private final PrintWriter err;
  private final Console console;

  SubagentLines(boolean json, PrintWriter out, PrintWriter err, Console console) {
    this.json = json;
    this.out = out;
    this.err = err;
    this.console = console;
  }

  /** Tells {@code tab}'s events from now on. */
  void follow(WorkspaceTab tab) {
    String id = tab.tabId();
    tab.session().subscribe(event -> {
      if (json) {
        synchronized (out) {
          out.println(EventLines.line(event, id));
          out.flush();
        }
        return;
      }
      String said = event instanceof Event.TurnStarted started ? "subagent started: " + started.prompt().lines().findFirst().orElse("")
          : event instanceof Event.ToolCallProposed proposed ? "> " + proposed.call().name() + " " + proposed.summary()
          : event instanceof Event.ToolCallFinished finished ? (finished.isError() ? "  ✗ " : "  ✓ ")
              + finished.result().lines().findFirst().orElse("")
          : event instanceof Event.Warning warning ? warning.message()
          : event instanceof Event.PromptBlocked blocked ? blocked.message()
          : event instanceof Event.Error error ? error.message()
          : event instanceof Event.TurnFinished finished ? "subagent " + finished.status().name().toLowerCase(Locale.ROOT)
          : null;
      if (said != null) {
        synchronized (err) {
          err.println("[" + id + "] " + said);
          err.flush();
        }
      }
    });
    if (console != null) {
      tab.session().subscribe(event -> {
        if (event instanceof Event.ToolCallProposed proposed && proposed.needsApproval()) {
          synchronized (SubagentLines.class) { // one question on the terminal at a time
            err.println("[" + id + "] the subagent asks:");
            tab.session().submit(ConsoleApproval.ask(console, proposed, tab.session().ruleFor(proposed.call()).toString()));
          }
        }
      });
    }
  }
}
