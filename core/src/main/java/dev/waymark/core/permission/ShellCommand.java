package dev.waymark.core.permission;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a rule needs to know of a shell command line, judged on its text without running a shell:
 * whether it chains another command after its first, its parts for deny rules, and the prefix an
 * "allow for the session" may offer. Quoting is not interpreted, so a quoted {@code ;} counts as
 * chaining: the worst that does is ask once more.
 */
public final class ShellCommand {
  /** Redirections that join output streams; the {@code &} in them chains nothing. */
  private static final Pattern STREAM_JOIN = Pattern.compile("[0-9]?>&[0-9]|&>>?");

  /** Where another command can start: sequencing, pipes, background, substitution, a new line. */
  private static final Pattern CHAIN = Pattern.compile(";|&&|\\|\\||\\||&|`|\\$\\(|<\\(|>\\(|\\r|\\n");

  /**
   * Programs whose first word says nothing of what they will do (shells, interpreters, wrappers
   * that run another command) or that destroy: a prefix of theirs would allow far more than the
   * command the user saw, so they are only ever allowed as the exact command.
   */
  private static final Set<String> NO_PREFIX = Set.of("rm", "rmdir", "shred", "dd", "mkfs", "sudo", "su", "doas",
      "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "env", "xargs", "eval", "exec", "source", ".",
      "command", "builtin", "nohup", "timeout", "nice", "ionice", "time", "watch", "strace", "chroot", "unshare",
      "setsid", "curl", "wget", "ssh", "scp", "rsync", "chmod", "chown", "find", "awk", "perl", "python", "python3",
      "node", "ruby", "php", "deno", "bun", "npx", "pnpx", "bunx", "osascript", "powershell", "pwsh", "busybox", "git-shell");

  private static final Pattern PROGRAM = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._+-]*");
  private static final Pattern SUBCOMMAND = Pattern.compile("[a-z][a-z0-9_:-]*");
  private static final int MAX_SUBCOMMANDS = 2;

  private ShellCommand() {}

  /** True when the line could run more than one command: {@code ;}, {@code &&}, {@code |}, {@code $(}, backticks, … */
  public static boolean chains(String command) {
    return CHAIN.matcher(STREAM_JOIN.matcher(command).replaceAll(" ")).find();
  }

  /** The commands a line may run, split where another could start, each stripped; for deny rules. */
  public static List<String> parts(String command) {
    List<String> parts = new ArrayList<>();
    for (String part : CHAIN.split(STREAM_JOIN.matcher(command).replaceAll(" "))) {
      String stripped = part.strip();
      while (stripped.startsWith("(") || stripped.startsWith("{")) {
        stripped = stripped.substring(1).strip();
      }
      if (!stripped.isEmpty()) {
        parts.add(stripped);
      }
    }
    return parts;
  }

  /**
   * The prefix "allow for the session" may offer: the program and up to two subcommand words after
   * it ({@code npm test}, {@code git status}, {@code npm run build}); empty when the line chains
   * commands or starts with a program in {@link #NO_PREFIX} (or a path, or a variable assignment).
   */
  public static Optional<String> prefix(String command) {
    String line = command.strip();
    if (line.isEmpty() || chains(line)) {
      return Optional.empty();
    }
    String[] words = line.split("\\s+");
    String program = words[0];
    if (!PROGRAM.matcher(program).matches() || NO_PREFIX.contains(program.toLowerCase(Locale.ROOT))) {
      return Optional.empty();
    }
    StringBuilder prefix = new StringBuilder(program);
    for (int i = 1; i < words.length && i <= MAX_SUBCOMMANDS && SUBCOMMAND.matcher(words[i]).matches(); i++) {
      prefix.append(' ').append(words[i]);
    }
    return Optional.of(prefix.toString());
  }
}
