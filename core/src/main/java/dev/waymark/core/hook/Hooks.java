package dev.waymark.core.hook;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.model.Cancellation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The hooks configured for a project, and how they are run. */
public final class Hooks {
  public static final Hooks NONE = new Hooks(List.of(), new HookRunner(Optional.empty(), 0));

  private final List<HookMatcher> matchers;
  private final HookRunner runner;

  public Hooks(List<HookMatcher> matchers, HookRunner runner) {
    this.matchers = List.copyOf(matchers);
    this.runner = runner;
  }

  public boolean isEmpty() {
    return matchers.isEmpty();
  }

  /** Every configured entry, in the order of the settings (the user's first). */
  public List<HookMatcher> matchers() {
    return matchers;
  }

  /** What {@code /hooks} shows: each hook with its event, matcher, timeout and where it was configured. */
  public List<String> describe() {
    if (matchers.isEmpty()) {
      return List.of("No hooks are configured. Add a \"hooks\" block to your settings (Claude Code's format; see the"
          + " README's Hooks section); a project's own hooks run once you trust the project.");
    }
    List<String> lines = new ArrayList<>(List.of("Hooks (run in this order at each event):"));
    for (HookMatcher matcher : matchers) {
      String tools = !matcher.event().perTool() ? "" : matcher.matcher().isEmpty() ? " (every tool)" : " " + matcher.matcher();
      for (HookCommand command : matcher.commands()) {
        lines.add("  " + matcher.event().settingName() + tools + ": " + command.command() + "  [timeout "
            + command.timeout().toSeconds() + " s; " + command.source() + "]");
      }
    }
    return lines;
  }

  /** The commands that run at {@code event} for {@code tool} (empty for an event of no tool), each once. */
  public List<HookCommand> commandsFor(HookEvent event, Optional<String> tool) {
    return selected(event, tool).stream().map(Selected::command).toList();
  }

  /** A command to run, and the tool name its hook knows the tool by (Claude Code's, when its matcher used that). */
  private record Selected(HookCommand command, Optional<String> claudeName) {}

  private List<Selected> selected(HookEvent event, Optional<String> tool) {
    Set<String> seen = new LinkedHashSet<>();
    List<Selected> found = new ArrayList<>();
    for (HookMatcher matcher : matchers) {
      if (matcher.event() == event && matcher.matches(tool.orElse(""))) {
        Optional<String> claudeName = tool.flatMap(matcher::claudeName);
        // the same command configured twice runs once, as in Claude Code
        matcher.commands().stream().filter(c -> seen.add(c.command())).forEach(c -> found.add(new Selected(c, claudeName)));
      }
    }
    return found;
  }

  /**
   * Runs the hooks of {@code event} for {@code tool}, one after another, each with {@code input}
   * (its {@code tool_name} Claude Code's when the hook's matcher named the tool so);
   * their changes are recorded in {@code turn} when there is one. Never throws: a hook that fails
   * is one of {@link HookVerdict#problems()}.
   */
  public HookVerdict fire(HookEvent event, Optional<String> tool, ObjectNode input, Path project, Optional<Turn> turn,
      Cancellation cancellation) {
    List<Selected> commands = selected(event, tool);
    if (commands.isEmpty()) {
      return HookVerdict.NONE;
    }
    List<HookOutcome> outcomes = new ArrayList<>();
    List<WorkTreeChanges> changes = new ArrayList<>();
    for (Selected selected : commands) {
      if (cancellation.isCancelled()) {
        break; // the user interrupted the turn: the rest of its hooks do not start
      }
      // a hook written for Claude Code's "Bash" may test tool_name == "Bash"
      String sent = selected.claudeName().map(name -> input.deepCopy().put("tool_name", name).toString())
          .orElseGet(input::toString);
      HookRunner.Ran ran = runner.run(selected.command(), sent, project, turn, cancellation);
      outcomes.add(ran.outcome().given(input));
      ran.changes().ifPresent(changes::add);
    }
    return new HookVerdict(outcomes, changes);
  }
}
