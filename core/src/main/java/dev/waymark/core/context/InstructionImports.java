package dev.waymark.core.context;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Claude Code's {@code @path} imports in an instruction file: {@code @docs/style.md} brings that
 * file in after the one that names it. A path is relative to the file that names it, or {@code ~/}
 * for the user's home; it must stay inside the file's root (the project, or the home for the
 * user's own files) with no link on the way, since the model would otherwise read what the read
 * tool refuses. A project's file reaches into the home only under {@code ~/.claude/} and
 * {@code ~/.config/waymark/}, where users keep instructions: a cloned project's {@code
 * @~/.ssh/id_rsa} must not put a key in the model's context. Imports nest {@value #MAX_DEPTH} deep; a file comes in once, so cycles end. A
 * {@code @word} that names no file (a handle, a decorator) is left as text; one inside a code span
 * or block is never read.
 */
final class InstructionImports {
  /** How many imports deep, as in Claude Code. */
  static final int MAX_DEPTH = 5;

  /** The most files one instruction file brings in, nested ones included. */
  static final int MAX_FILES = 32;

  private static final Pattern IMPORT = Pattern.compile("(?<![^\\s(\\[])@([~./\\w][^\\s`'\"()<>\\[\\]]*)");
  private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");

  private final Path within;
  private final Path home;
  private final Set<Path> seen = new HashSet<>();
  private final List<String> blocks = new ArrayList<>();

  private InstructionImports(Path within, Path home) {
    this.within = within.toAbsolutePath().normalize();
    this.home = home.toAbsolutePath().normalize();
  }

  /**
   * {@code text} (of {@code file}, under {@code within}: the project, or the home for the user's
   * own files) followed by what it imports, each as its own block under a line that names it, or a
   * note saying why an import was left out.
   */
  static String expand(Path within, Path home, Path file, String text) {
    InstructionImports imports = new InstructionImports(within, home);
    imports.seen.add(file.toAbsolutePath().normalize());
    imports.follow(file.toAbsolutePath().normalize(), text, 1);
    if (imports.blocks.isEmpty()) {
      return text;
    }
    return text + "\n\n" + String.join("\n\n", imports.blocks);
  }

  private void follow(Path file, String text, int depth) {
    for (String written : named(text)) {
      Optional<Path> target = resolve(file.getParent(), written);
      if (target.isEmpty() || !seen.add(target.get())) {
        continue;
      }
      if (depth > MAX_DEPTH) {
        blocks.add("[@" + written + " not imported: imports go " + MAX_DEPTH + " deep at most]");
        continue;
      }
      if (seen.size() > MAX_FILES + 1) {
        blocks.add("[@" + written + " not imported: one instruction file imports " + MAX_FILES + " files at most]");
        return;
      }
      Optional<String> read = InstructionText.read(target.get());
      if (read.isPresent()) {
        blocks.add("## " + shown(target.get()) + " (imported with @" + written + ")\n\n" + read.get());
        follow(target.get(), read.get(), depth + 1);
      }
    }
  }

  /** The paths {@code text} imports, in order, outside code blocks and spans. */
  static List<String> named(String text) {
    List<String> found = new ArrayList<>();
    boolean fenced = false;
    for (String line : text.split("\n", -1)) {
      String trimmed = line.stripLeading();
      if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
        fenced = !fenced;
        continue;
      }
      if (fenced) {
        continue;
      }
      Matcher m = IMPORT.matcher(CODE_SPAN.matcher(line).replaceAll(" "));
      while (m.find()) {
        found.add(m.group(1).replaceAll("[.,;:!?]+$", ""));
      }
    }
    return found;
  }

  /** Where {@code written} leads from {@code directory}, if that is a regular file inside its root. */
  private Optional<Path> resolve(Path directory, String written) {
    boolean fromHome = written.startsWith("~/");
    Path inside = fromHome ? home : within;
    boolean userFile = within.equals(home);
    Path target;
    try {
      target = fromHome ? home.resolve(written.substring(2)).normalize() : directory.resolve(written).normalize();
    } catch (InvalidPathException e) {
      return Optional.empty();
    }
    if (fromHome && !userFile && !target.startsWith(home.resolve(".claude"))
        && !target.startsWith(home.resolve(".config").resolve("waymark"))) {
      return Optional.empty();
    }
    if (!target.startsWith(inside) || target.equals(inside) || linkOnTheWay(inside, target)) {
      return Optional.empty();
    }
    return Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS) ? Optional.of(target) : Optional.empty();
  }

  /** Project-relative, or {@code ~/}-relative for a file of the home outside the project. */
  private String shown(Path target) {
    if (target.startsWith(within) && !within.equals(home)) {
      return within.relativize(target).toString();
    }
    return target.startsWith(home) ? "~/" + home.relativize(target) : target.toString();
  }

  private static boolean linkOnTheWay(Path within, Path target) {
    Path at = within;
    for (Path part : within.relativize(target)) {
      at = at.resolve(part);
      if (Files.isSymbolicLink(at)) {
        return true;
      }
    }
    return false;
  }
}
