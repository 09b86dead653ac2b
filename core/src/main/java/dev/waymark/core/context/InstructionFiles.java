package dev.waymark.core.context;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The project's instruction files, {@code AGENTS.md} and {@code CLAUDE.md} (the names Codex and
 * Claude Code read): those at the root go into the system prompt; one in a directory below is
 * added when the agent first reads a file under it, and where it disagrees with one further up,
 * the nearer one wins. Each brings in the files it imports with {@code @path}, as Claude Code's do
 * (see {@link InstructionImports}). The user's own files ({@link #ofUser}) come before the project's.
 */
public final class InstructionFiles {
  public static final List<String> NAMES = List.of("AGENTS.md", "CLAUDE.md");

  /** The most of one file the model gets: instruction files are meant to be short. */
  public static final int MAX_CHARS = InstructionText.MAX_CHARS;

  private InstructionFiles() {}

  /** What {@code /init} asks of the agent: a starting AGENTS.md, written in a turn the user can undo. */
  public static final String INIT_PROMPT = String.join("\n",
      "/init: write a starting AGENTS.md for this project: instructions for coding agents working in it.",
      "First look at the project (its layout, build files, README, tests, CI configuration) with your tools.",
      "Then write AGENTS.md at the project root, short and specific to this project: what it is, how it is laid out,",
      "the commands to build, test and lint it, the code style and conventions it follows, and anything a newcomer",
      "would get wrong. If AGENTS.md (or CLAUDE.md) exists already, improve it instead of starting over, and keep",
      "what it says that is still true. Do not change any other file.");

  /**
   * One instruction file: its project-relative path (or {@code ~/}-relative, for the user's own)
   * and its text, cut at {@link #MAX_CHARS} with a note, followed by the files it imports.
   *
   * @param user one of the user's own files, for every project, rather than the project's
   */
  public record Instructions(String path, String text, boolean user) {
    public Instructions(String path, String text) {
      this(path, text, false);
    }

    /** The directory it governs, project-relative, {@code ""} for the root. */
    public String directory() {
      int slash = path.lastIndexOf('/');
      return slash < 0 ? "" : path.substring(0, slash);
    }

    /** The first line of its block, also how a conversation is searched for it. */
    public String header() {
      if (user) {
        return "# The user's own instructions (" + path + "), for every project; where the project's "
            + "instructions disagree, the project's win";
      }
      return directory().isEmpty() ? "# Project instructions (" + path + ")"
          : "# Instructions in " + path + " (for files under " + directory() + "/; where they disagree with "
              + "instructions further up, these win)";
    }

    public String block() {
      return header() + "\n\n" + text;
    }
  }

  /** The files at the project's root, {@code AGENTS.md} first. */
  public static List<Instructions> atRoot(Path root) {
    return atRoot(root, userHome());
  }

  /** As {@link #atRoot(Path)}, with {@code home} where {@code @~/} imports lead. */
  public static List<Instructions> atRoot(Path root, Path home) {
    return in(root, "", home);
  }

  /**
   * The user's own files, read before the project's: {@code AGENTS.md} in Waymark's configuration
   * directory ({@code ~/.config/waymark}), then Claude Code's {@code ~/.claude/CLAUDE.md}. Their
   * imports stay inside the home.
   */
  public static List<Instructions> ofUser(Path configDirectory, Path home) {
    List<Instructions> found = new ArrayList<>();
    for (Path file : List.of(configDirectory.resolve("AGENTS.md"), home.resolve(".claude").resolve("CLAUDE.md"))) {
      Path absolute = file.toAbsolutePath().normalize();
      Path at = home.toAbsolutePath().normalize();
      String shown = absolute.startsWith(at) ? "~/" + at.relativize(absolute) : absolute.toString();
      // the user's own directory: a link there is the user's choice, unlike one in a cloned project
      if (Files.isRegularFile(file) && found.stream().noneMatch(f -> f.path().equals(shown))) {
        real(file).flatMap(InstructionFiles::read).filter(text -> !text.isBlank()).ifPresent(text ->
            found.add(new Instructions(shown, InstructionImports.expand(at, at, absolute, text), true)));
      }
    }
    return found;
  }

  /** The blocks of {@link #ofUser}, blank-line separated; empty when the user has none. */
  public static String userBlocks(Path configDirectory, Path home) {
    return String.join("\n\n", ofUser(configDirectory, home).stream().map(Instructions::block).toList());
  }

  private static Optional<Path> real(Path file) {
    try {
      return Optional.of(file.toRealPath());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static Path userHome() {
    return Path.of(System.getProperty("user.home", "/"));
  }

  /**
   * The files of the directories between the root (left out) and the file at {@code relativePath}
   * (project-relative, {@code /} separated), outermost first, so that the nearest comes last and wins.
   */
  public static List<Instructions> along(Path root, String relativePath) {
    return along(root, relativePath, userHome());
  }

  /** As {@link #along(Path, String)}, with {@code home} where {@code @~/} imports lead. */
  public static List<Instructions> along(Path root, String relativePath, Path home) {
    List<Instructions> found = new ArrayList<>();
    String[] parts = relativePath.replace('\\', '/').split("/");
    StringBuilder directory = new StringBuilder();
    for (int i = 0; i < parts.length - 1; i++) {
      if (parts[i].isEmpty() || parts[i].equals(".")) {
        continue;
      }
      if (parts[i].equals("..")) {
        return List.of(); // outside the project: the read tool refuses it anyway
      }
      directory.append(directory.length() == 0 ? "" : "/").append(parts[i]);
      found.addAll(in(root, directory.toString(), home));
    }
    return found;
  }

  private static List<Instructions> in(Path root, String directory, Path home) {
    List<Instructions> found = new ArrayList<>();
    for (String name : NAMES) {
      String path = directory.isEmpty() ? name : directory + "/" + name;
      Path file = root.resolve(path);
      // a link could lead the model to read files outside the project: only regular files count
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || linkOnTheWay(root, directory)) {
        continue;
      }
      read(file).ifPresent(text -> {
        if (!text.isBlank()) {
          found.add(new Instructions(path, InstructionImports.expand(root, home, file, text)));
        }
      });
    }
    return found;
  }

  private static boolean linkOnTheWay(Path root, String directory) {
    Path at = root;
    for (String part : directory.isEmpty() ? new String[0] : directory.split("/")) {
      at = at.resolve(part);
      if (Files.isSymbolicLink(at)) {
        return true;
      }
    }
    return false;
  }

  static Optional<String> read(Path file) {
    return InstructionText.read(file);
  }

}
