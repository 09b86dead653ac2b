package dev.waymark.core.permission;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The allow and deny rules in force for a workspace, each with where it came from: the user's
 * settings, the project's, or this session only. Deny wins over allow. Shared by the workspace's
 * tabs, read on their turn threads and changed from the interface: thread-safe.
 */
public final class Permissions {
  /** Where a rule lives: this session only, the project's {@code .waymark/settings.json}, the user's settings. */
  public enum Scope {
    SESSION, PROJECT, USER;

    public String label() {
      return switch (this) {
        case SESSION -> "this session";
        case PROJECT -> "project settings";
        case USER -> "user settings";
      };
    }
  }

  /** A rule in force: what it matches, whether it denies, and where it lives. */
  public record Entry(Scope scope, boolean deny, PermissionRule rule) {
    @Override
    public String toString() {
      return (deny ? "deny  " : "allow ") + rule + "  (" + scope.label() + ")";
    }
  }

  /** What the rules say of a call: run it, refuse it, or ask (no rule matched); with the rule that decided. */
  public record Verdict(Outcome outcome, Optional<Entry> because) {
    public static final Verdict ASK = new Verdict(Outcome.ASK, Optional.empty());
  }

  public enum Outcome { ALLOW, DENY, ASK }

  /** Writes rules into a settings file; the application's, since core never writes settings. */
  public interface RuleFiles {
    /** Adds the rule to the file of {@code scope} (PROJECT or USER); throws with a message for the user when it cannot. */
    void add(Scope scope, boolean deny, String rule) throws IOException;

    /** Takes the rule out of the file of {@code scope}, keeping everything else in it. */
    void remove(Scope scope, boolean deny, String rule) throws IOException;

    /** Whether an allow rule kept in {@code scope}'s file is honoured (an untrusted project's allow rules are not). */
    default boolean keepsAllowRules(Scope scope) {
      return true;
    }

    RuleFiles NONE = new RuleFiles() {
      @Override
      public void add(Scope scope, boolean deny, String rule) throws IOException {
        throw new IOException("rules cannot be saved to settings here");
      }

      @Override
      public void remove(Scope scope, boolean deny, String rule) throws IOException {
        throw new IOException("rules cannot be removed from settings here");
      }
    };
  }

  private final List<Entry> entries;
  private final RuleFiles files;

  public Permissions(List<Entry> configured, RuleFiles files) {
    this.entries = new CopyOnWriteArrayList<>(configured);
    this.files = files;
  }

  /** Whether an allow rule can be kept in {@code scope} and then hold: the approval offers only those places. */
  public boolean keepsAllowRules(Scope scope) {
    return scope == Scope.SESSION || files.keepsAllowRules(scope);
  }

  /** No configured rules; session rules only. */
  public static Permissions none() {
    return new Permissions(List.of(), RuleFiles.NONE);
  }

  /** The rules in force, in the order they were given (settings first, then the session's). */
  public List<Entry> entries() {
    return List.copyOf(entries);
  }

  /** What the rules say of a call of {@code tool}, with {@code command} for run_shell. Deny wins. */
  public Verdict check(String tool, Optional<String> command) {
    Optional<Entry> allowed = Optional.empty();
    for (Entry e : entries) {
      if (e.deny() && e.rule().denies(tool, command)) {
        return new Verdict(Outcome.DENY, Optional.of(e));
      }
      if (!e.deny() && allowed.isEmpty() && e.rule().allows(tool, command)) {
        allowed = Optional.of(e);
      }
    }
    return allowed.map(e -> new Verdict(Outcome.ALLOW, Optional.of(e))).orElse(Verdict.ASK);
  }

  /** Puts a rule in force, saving it to its settings file first (a rule that cannot be saved is not added). */
  public void add(Entry entry) throws IOException {
    if (entries.contains(entry)) {
      return;
    }
    if (entry.scope() != Scope.SESSION) {
      files.add(entry.scope(), entry.deny(), entry.rule().toString());
    }
    entries.add(entry);
  }

  /** Takes a rule out of force, and out of its settings file; false when it was not in force. */
  public boolean remove(Entry entry) throws IOException {
    if (!entries.contains(entry)) {
      return false;
    }
    if (entry.scope() != Scope.SESSION) {
      files.remove(entry.scope(), entry.deny(), entry.rule().toString());
    }
    return entries.remove(entry);
  }
}
