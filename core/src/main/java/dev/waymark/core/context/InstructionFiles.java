package dev.waymark.core.context;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
 * the nearer one wins.
 */
public final class InstructionFiles {
  public static final List<String> NAMES = List.of("AGENTS.md", "CLAUDE.md");

  /** The most of one file the model gets: instruction files are meant to be short. */
  public static final int MAX_CHARS = 64 * 1024;

  private InstructionFiles() {}

  /** What {@code /init} asks of the agent: a starting AGENTS.md, written in a turn the user can undo. */
  public static final String INIT_PROMPT = String.join("\n",
      "/init: write a starting AGENTS.md for this project: instructions for coding agents working in it.",
      "First look at the project (its layout, build files, README, tests, CI configuration) with your tools.",
      "Then write AGENTS.md at the project root, short and specific to this project: what it is, how it is laid out,",
      "the commands to build, test and lint it, the code style and conventions it follows, and anything a newcomer",
      "would get wrong. If AGENTS.md (or CLAUDE.md) exists already, improve it instead of starting over, and keep",
      "what it says that is still true. Do not change any other file.");

  /** One instruction file: its project-relative path and its text, cut at {@link #MAX_CHARS} with a note. */
  public record Instructions(String path, String text) {
    /** The directory it governs, project-relative, {@code ""} for the root. */
    public String directory() {
      int slash = path.lastIndexOf('/');
      return slash < 0 ? "" : path.substring(0, slash);
    }

    /** The first line of its block, also how a conversation is searched for it. */
    public String header() {
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
    return in(root, "");
  }

  /**
   * The files of the directories between the root (left out) and the file at {@code relativePath}
   * (project-relative, {@code /} separated), outermost first, so that the nearest comes last and wins.
   */
  public static List<Instructions> along(Path root, String relativePath) {
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
      found.addAll(in(root, directory.toString()));
    }
    return found;
  }

  private static List<Instructions> in(Path root, String directory) {
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
          found.add(new Instructions(path, text));
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

  private static Optional<String> read(Path file) {
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes(MAX_CHARS * 4 + 1); // enough for MAX_CHARS characters of any UTF-8
      String text = new String(bytes, StandardCharsets.UTF_8);
      boolean cut = text.length() > MAX_CHARS || bytes.length > MAX_CHARS * 4;
      if (text.length() > MAX_CHARS) {
        text = text.substring(0, MAX_CHARS);
      }
      text = text.strip();
      return Optional.of(cut ? text + "\n[" + file.getFileName() + " cut at " + MAX_CHARS + " characters]" : text);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
