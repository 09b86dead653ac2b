package dev.waymark.core.hook;

import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.util.List;
import java.util.Optional;

/**
 * What the hooks of one event said together: one that blocks blocks, a PreToolUse deny wins over
 * ask, ask over allow; their context and reasons are joined in the order they ran.
 *
 * @param changes what each hook run in a turn changed in the project, recorded in its checkpoint
 */
public record HookVerdict(List<HookOutcome> outcomes, List<WorkTreeChanges> changes) {
  public static final HookVerdict NONE = new HookVerdict(List.of(), List.of());

  public HookVerdict {
    outcomes = List.copyOf(outcomes);
    changes = List.copyOf(changes);
  }

  public boolean blocks() {
    return outcomes.stream().anyMatch(HookOutcome::blocks);
  }

  /** The reasons of those that block (or, when none does, of those that decided), one per line. */
  public String reason() {
    List<HookOutcome> deciding = blocks() ? outcomes.stream().filter(HookOutcome::blocks).toList() : outcomes;
    return String.join("\n", deciding.stream().map(HookOutcome::reason).filter(r -> !r.isBlank()).toList());
  }

  /**
   * The hooks that decided, each {@link HookCommand#named}: those that block, else those that stop the turn,
   * else every one that ran.
   */
  public String named(String event) {
    List<HookOutcome> deciding = blocks() ? outcomes.stream().filter(HookOutcome::blocks).toList()
        : stops().isPresent() ? outcomes.stream().filter(o -> o.stops().isPresent()).toList() : outcomes;
    List<String> names = deciding.stream().map(o -> o.hook().named(event)).distinct().toList();
    return names.isEmpty() ? "a " + event + " hook" : String.join(" and ", names);
  }

  /** {@link #named} to begin a sentence. */
  public String namedFirst(String event) {
    String named = named(event);
    return Character.toUpperCase(named.charAt(0)) + named.substring(1);
  }

  /** Why the turn ends here, when a hook said {@code "continue": false} (its {@code stopReason}, maybe empty). */
  public Optional<String> stops() {
    return outcomes.stream().flatMap(o -> o.stops().stream()).findFirst();
  }

  /** PreToolUse's decision: deny, ask or allow, the strictest said; empty when no hook said one. */
  public Optional<String> permission() {
    for (String strictest : List.of("deny", "ask", "allow")) {
      if (outcomes.stream().anyMatch(o -> o.permission().filter(strictest::equals).isPresent())) {
        return Optional.of(strictest);
      }
    }
    return Optional.empty();
  }

  /** What they add to the model's context, one block per hook that said something. */
  public String context() {
    return String.join("\n\n", outcomes.stream().map(HookOutcome::context).filter(c -> !c.isBlank()).toList());
  }

  /** What the user is told of hooks that failed: timed out, not started, other exit codes. */
  public List<String> problems() {
    return outcomes.stream().flatMap(o -> o.problem().stream()).toList();
  }

  /** The project paths the hooks changed, recorded in the turn. */
  public List<String> changedPaths() {
    return changes.stream().flatMap(c -> c.recorded().stream()).map(c -> c.path()).distinct().sorted().toList();
  }
}
