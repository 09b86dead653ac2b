package dev.waymark.app;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * How the user's shell starts in a tab's view: a start file of Waymark's that runs the user's own
 * first, then marks the prompt (so the user sees where they are) and notes each command as it
 * starts (the last one labels the checkpoint), for bash, zsh and POSIX shells (others
 * start as they are). It lives in a private directory the sandbox shares, deleted on close.
 */
final class ShellStart implements AutoCloseable {
  /** The prompt's mark, which the start file puts in front of the prompt. */
  static final String MARK = "WAYMARK_SHELL_MARK";
  /** The private directory, where the shell notes its last command. */
  static final String DIRECTORY = "WAYMARK_SHELL_DIR";
  private static final int LABEL_CHARS = 80;
  /** More than a command line the shell notes: not read. */
  private static final long NOTED_BYTES = 64 << 10;
  /** After the user's prompt commands, keeping the status they show: puts the mark back if they rewrote the prompt. */
  private static final String PROMPT_FUNCTION = "__waymark_prompt() { __waymark_s=$?; case \"$PS1\" in \"$" + MARK
      + "\"*) ;; *) PS1=\"$" + MARK + "$PS1\" ;; esac; return $__waymark_s; }\n";
  /**
   * Notes a command as it starts (a shell stopped while it runs is labelled by it): bash's PS0,
   * which prints nothing; {@code history 1}, as {@code fc} there names the command before.
   */
  private static final String BASH_NOTE = "PS0=\"${PS0}\\$(history 1 > \\\"\\$" + DIRECTORY + "/last\\\" 2>/dev/null)\"\n";
  /** The same for zsh, which hands the command line to its preexec functions. */
  private static final String ZSH_NOTE = "__waymark_note() { print -r -- \"$1\" > \"$" + DIRECTORY + "/last\"; }\n"
      + "preexec_functions+=(__waymark_note)\n";

  private final Path directory;
  private final List<String> argv;
  private final Map<String, String> environment;
  private final boolean numbered;

  private ShellStart(Path directory, List<String> argv, Map<String, String> environment, boolean numbered) {
    this.directory = directory;
    this.numbered = numbered;
    this.argv = List.copyOf(argv);
    this.environment = Map.copyOf(environment);
  }

  /** The start of {@code $SHELL} (else {@code /bin/sh}) in tab {@code tabId}, with {@code env}. */
  static ShellStart prepare(String tabId, Map<String, String> env) throws IOException {
    Path directory = Files.createTempDirectory("waymark-shell-", PosixFilePermissions.asFileAttribute(
        PosixFilePermissions.fromString("rwx------"))).toRealPath();
    String shell = env.getOrDefault("SHELL", "/bin/sh");
    Map<String, String> environment = new HashMap<>(env);
    environment.put(MARK, "(waymark \u25c7 " + tabId + ") ");
    environment.put(DIRECTORY, directory.toString());
    List<String> argv = new ArrayList<>(List.of(shell));
    String name = Path.of(shell).getFileName().toString();
    if (name.equals("bash")) {
      write(directory.resolve("bashrc"), "if [ -f \"$HOME/.bashrc\" ]; then . \"$HOME/.bashrc\"; fi\n" + PROMPT_FUNCTION
          + BASH_NOTE + "PS1=\"$" + MARK + "$PS1\"\nPROMPT_COMMAND=\"${PROMPT_COMMAND:+$PROMPT_COMMAND\n}__waymark_prompt\"\n");
      argv.addAll(List.of("--rcfile", directory.resolve("bashrc").toString(), "-i"));
    } else if (name.equals("zsh")) {
      write(directory.resolve(".zshenv"), "if [ -f \"$HOME/.zshenv\" ]; then . \"$HOME/.zshenv\"; fi\n");
      write(directory.resolve(".zshrc"), "ZDOTDIR=\"$HOME\"\nif [ -f \"$HOME/.zshrc\" ]; then . \"$HOME/.zshrc\"; fi\n"
          + PROMPT_FUNCTION + ZSH_NOTE + "PS1=\"$" + MARK + "$PS1\"\nprecmd_functions+=(__waymark_prompt)\n");
      environment.put("ZDOTDIR", directory.toString());
      argv.add("-i");
    } else if (List.of("sh", "dash", "ksh", "mksh", "ash").contains(name)) {
      write(directory.resolve("shrc"), "PS1=\"$" + MARK + "${PS1:-\\$ }\"\n");
      environment.put("ENV", directory.resolve("shrc").toString());
      argv.add("-i");
    }
    return new ShellStart(directory, argv, environment, name.equals("bash"));
  }

  private static void write(Path file, String text) throws IOException {
    Files.writeString(file, text, StandardCharsets.UTF_8);
  }

  List<String> argv() {
    return argv;
  }

  Map<String, String> environment() {
    return environment;
  }

  /** The private directory the sandbox shares. */
  Path directory() {
    return directory;
  }

  /** The last command the shell ran, as it noted it (first line, cut to a label's length); empty when none. */
  Optional<String> lastCommand() {
    try {
      // written inside the sandbox, read outside it: a link or a FIFO planted there must lead nowhere (the shell's
      // processes are all stopped by now, so it cannot change between this look and the read)
      Path last = directory.resolve("last");
      BasicFileAttributes seen = Files.readAttributes(last, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      if (!seen.isRegularFile() || seen.size() > NOTED_BYTES) {
        return Optional.empty();
      }
      String noted = Files.readString(last, StandardCharsets.UTF_8).strip();
      // bash's history numbers it: "  12  make test"
      String line = noted.lines().findFirst().orElse("").replaceFirst(numbered ? "^\\s*\\d+\\*?\\s+" : "^$", "").strip();
      return line.isEmpty() ? Optional.empty()
          : Optional.of(line.length() > LABEL_CHARS ? line.substring(0, LABEL_CHARS - 1) + "\u2026" : line);
    } catch (IOException | RuntimeException none) {
      return Optional.empty();
    }
  }

  /** What the user is told as the shell starts: where it is, what is recorded, and what is left out. */
  static String banner(String tabId, String title, Path project, boolean withKeys) {
    return "waymark: a shell in tab " + tabId + (title == null || title.isBlank() ? "" : " (" + title + ")")
        + ", inside its sandboxed view of " + project + ": the project as the tab sees it; the prompt starts with "
        + "(waymark \u25c7 " + tabId + ").\nwaymark: what you change is recorded as one checkpoint of the tab when the "
        + "shell ends (exit or Ctrl+D); Ctrl+C stops the command in it. "
        + (withKeys ? "Your API keys are passed to it (--with-api-keys)." : "Your API keys are left out (--with-api-keys "
            + "passes them).");
  }

  /** {@code script} (util-linux), which gives the shell a terminal of its own; empty when there is none. */
  static Optional<Path> script(Map<String, String> env) {
    List<String> dirs = new ArrayList<>(List.of(env.getOrDefault("PATH", "").split(File.pathSeparator)));
    dirs.addAll(List.of("/usr/bin", "/bin"));
    return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, "script")).filter(Files::isExecutable).findFirst();
  }

  /** Deletes the directory and whatever the shell left in it (links are deleted, never followed). */
  @Override
  public void close() {
    try (Stream<Path> all = Files.walk(directory)) {
      for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory the system clears; the shell's checkpoint is what matters
    }
  }
}
