package dev.waymark.core.tool;

import dev.waymark.core.sandbox.ShellSandbox;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The limits the tools keep, so that one call cannot flood the model's context or run forever.
 *
 * @param readMaxLines lines {@code read_file} returns when no {@code limit} is given, and the most it returns
 * @param readMaxChars characters of {@code read_file} output, line numbers included
 * @param listMaxFiles paths {@code list_files} returns
 * @param grepMaxMatches matching lines {@code grep} returns
 * @param maxFileSize bytes: larger files are not searched by {@code grep}, and a shell command's
 *     changes to them are reported but not recorded (so not undoable)
 * @param shellTimeout how long {@code run_shell} waits when the call gives no {@code timeout_ms}
 * @param shellMaxTimeout the most a call's {@code timeout_ms} may ask for
 * @param shellMaxOutputBytes bytes of a command's output kept: the first and last halves
 * @param withheldVariables environment variables {@code run_shell}'s commands do not get: the
 *     provider keys, so that {@code env} in a command cannot copy one into the conversation
 * @param sandbox where {@code run_shell}'s commands run: {@link dev.waymark.core.sandbox.ShellSandbox#OFF}
 *     here, the app's settings choose it
 */
public record ToolSettings(
    int readMaxLines,
    int readMaxChars,
    int listMaxFiles,
    int grepMaxMatches,
    long maxFileSize,
    Duration shellTimeout,
    Duration shellMaxTimeout,
    int shellMaxOutputBytes,
    Set<String> withheldVariables,
    ShellSandbox sandbox) {

  /** The key variables Waymark itself reads. */
  public static final Set<String> PROVIDER_KEYS = Set.of("OPENAI_API_KEY", "ANTHROPIC_API_KEY");

  public static final ToolSettings DEFAULTS = new ToolSettings(2_000, 60_000, 1_000, 200, 10L << 20,
      Duration.ofSeconds(120), Duration.ofMinutes(10), 30_000, PROVIDER_KEYS, ShellSandbox.OFF);

  public ToolSettings {
    withheldVariables = Set.copyOf(withheldVariables);
    Objects.requireNonNull(sandbox);
    Objects.requireNonNull(shellTimeout);
    Objects.requireNonNull(shellMaxTimeout);
    if (readMaxLines < 1 || readMaxChars < 1 || listMaxFiles < 1 || grepMaxMatches < 1 || maxFileSize < 0
        || shellMaxOutputBytes < 2 || shellTimeout.isNegative() || shellTimeout.isZero()
        || shellMaxTimeout.compareTo(shellTimeout) < 0) {
      throw new IllegalArgumentException("tool limits must be positive, and the shell's maximum timeout at least its default");
    }
  }

  public ToolSettings withMaxFileSize(long bytes) {
    return new ToolSettings(readMaxLines, readMaxChars, listMaxFiles, grepMaxMatches, bytes, shellTimeout,
        shellMaxTimeout, shellMaxOutputBytes, withheldVariables, sandbox);
  }

  public ToolSettings withShellMaxOutputBytes(int bytes) {
    return new ToolSettings(readMaxLines, readMaxChars, listMaxFiles, grepMaxMatches, maxFileSize, shellTimeout,
        shellMaxTimeout, bytes, withheldVariables, sandbox);
  }

  public ToolSettings withListMaxFiles(int files) {
    return new ToolSettings(readMaxLines, readMaxChars, files, grepMaxMatches, maxFileSize, shellTimeout,
        shellMaxTimeout, shellMaxOutputBytes, withheldVariables, sandbox);
  }

  public ToolSettings withGrepMaxMatches(int matches) {
    return new ToolSettings(readMaxLines, readMaxChars, listMaxFiles, matches, maxFileSize, shellTimeout,
        shellMaxTimeout, shellMaxOutputBytes, withheldVariables, sandbox);
  }

  public ToolSettings withReadLimits(int maxLines, int maxChars) {
    return new ToolSettings(maxLines, maxChars, listMaxFiles, grepMaxMatches, maxFileSize, shellTimeout,
        shellMaxTimeout, shellMaxOutputBytes, withheldVariables, sandbox);
  }

  /** These limits, with {@code names} withheld from shell commands besides the provider keys. */
  public ToolSettings withholding(Collection<String> names) {
    Set<String> all = new HashSet<>(withheldVariables);
    all.addAll(names);
    return new ToolSettings(readMaxLines, readMaxChars, listMaxFiles, grepMaxMatches, maxFileSize, shellTimeout,
        shellMaxTimeout, shellMaxOutputBytes, all, sandbox);
  }

  /** These limits, with shell commands run in {@code shellSandbox}. */
  public ToolSettings withSandbox(ShellSandbox shellSandbox) {
    return new ToolSettings(readMaxLines, readMaxChars, listMaxFiles, grepMaxMatches, maxFileSize, shellTimeout,
        shellMaxTimeout, shellMaxOutputBytes, withheldVariables, shellSandbox);
  }
}
