package dev.waymark.core.hook;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * How one hook ended, read as Claude Code reads it: exit 0 goes on (its standard output may be
 * JSON that decides, or text for the context), exit 2 blocks with its standard error as the
 * reason, any other code is reported and goes on.
 *
 * @param exitCode the exit status; -1 when it timed out or did not start
 * @param failure why it did not run to its end (timed out, could not start); empty when it did
 * @param echoes whether its standard output only repeats a value the hook was given (a logging
 *     hook printing the command): then it is text, never a decision, however it is spelled
 */
public record HookOutcome(HookCommand hook, int exitCode, String stdout, String stderr, Optional<String> failure,
    boolean echoes) {
  /** The exit status that blocks, as in Claude Code. */
  public static final int BLOCK = 2;
  // as Claude Code's JSON.parse: the whole output is one document, or it is not JSON
  private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  public HookOutcome {
    stdout = stdout == null ? "" : stdout;
    stderr = stderr == null ? "" : stderr;
  }

  public HookOutcome(HookCommand hook, int exitCode, String stdout, String stderr, Optional<String> failure) {
    this(hook, exitCode, stdout, stderr, failure, false);
  }

  /** This outcome, marked as an echo when its standard output is one of the string values of {@code input}. */
  public HookOutcome given(JsonNode input) {
    String text = stdout.strip();
    boolean repeats = !text.isEmpty() && strings(input).anyMatch(text::equals);
    return repeats == echoes ? this : new HookOutcome(hook, exitCode, stdout, stderr, failure, repeats);
  }

  private static Stream<String> strings(JsonNode node) {
    if (node.isTextual()) {
      return Stream.of(node.asText().strip());
    }
    return StreamSupport.stream(node.spliterator(), false).flatMap(HookOutcome::strings);
  }

  /** Standard output as the JSON object Claude Code's hooks may print; empty when it is not one. */
  private Optional<JsonNode> json() {
    String text = stdout.strip();
    if (exitCode != 0 || echoes || !text.startsWith("{")) {
      return Optional.empty();
    }
    try {
      JsonNode node = JSON.readTree(text);
      return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty(); // text that only looks like JSON is context, as any other text
    }
  }

  /** What PreToolUse's {@code permissionDecision} (or the older {@code decision: approve/block}) says: allow, deny or ask. */
  public Optional<String> permission() {
    if (exitCode == BLOCK) {
      return Optional.of("deny");
    }
    return json().flatMap(node -> {
      String said = node.path("hookSpecificOutput").path("permissionDecision").asText("");
      if (said.isEmpty()) {
        said = switch (node.path("decision").asText("")) {
          case "approve" -> "allow";
          case "block" -> "deny";
          default -> "";
        };
      }
      return said.equals("allow") || said.equals("deny") || said.equals("ask") ? Optional.of(said) : Optional.empty();
    });
  }

  /** Whether it blocks what it ran before (exit 2, {@code "decision": "block"}, or a PreToolUse deny). */
  public boolean blocks() {
    return exitCode == BLOCK || permission().filter("deny"::equals).isPresent()
        || json().map(node -> node.path("decision").asText("").equals("block")).orElse(false);
  }

  /** The reason it gives: standard error for exit 2, else its JSON's reason. */
  public String reason() {
    if (exitCode == BLOCK) {
      return stderr.strip().isEmpty() ? "(the hook gave no reason)" : stderr.strip();
    }
    return json().map(node -> {
      String reason = node.path("hookSpecificOutput").path("permissionDecisionReason").asText("");
      return reason.isEmpty() ? node.path("reason").asText("") : reason;
    }).orElse("");
  }

  /** Its {@code stopReason} when its JSON says {@code "continue": false}: the turn ends after it. */
  public Optional<String> stops() {
    return json().filter(node -> node.path("continue").isBoolean() && !node.path("continue").asBoolean())
        .map(node -> node.path("stopReason").asText(""));
  }

  /** What it adds to the model's context: {@code additionalContext}, or on exit 0 its plain standard output. */
  public String context() {
    if (exitCode != 0) {
      return "";
    }
    Optional<JsonNode> json = json();
    if (json.isPresent()) {
      return json.get().path("hookSpecificOutput").path("additionalContext").asText("");
    }
    return stdout.strip();
  }

  /** What the user is told of a hook that failed (other exit codes, a timeout, no start); empty when it did not. */
  public Optional<String> problem() {
    if (failure.isPresent()) {
      return Optional.of("the hook \"" + hook.command() + "\" (" + hook.source() + ") " + failure.get());
    }
    if (exitCode != 0 && exitCode != BLOCK) {
      return Optional.of("the hook \"" + hook.command() + "\" (" + hook.source() + ") ended with exit code " + exitCode
          + (stderr.isBlank() ? "" : ": " + stderr.strip()));
    }
    return Optional.empty();
  }
}
