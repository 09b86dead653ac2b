package dev.waymark.core.context;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Prompts kept as Markdown files, run as {@code /name}: {@code name.md} in the project's
 * {@code .waymark/commands/} (only in a trusted project) or in the user's
 * {@code $XDG_CONFIG_HOME/waymark/commands/}. The file's text is the prompt, {@code $ARGUMENTS}
 * standing for what follows the name; its first line (or a front matter {@code description:})
 * describes it in the command menu. The directories are read again at each use, so a file
 * written during a session is there at once.
 */
public final class CustomCommands {
  /** A command's file may be at most this long: a prompt, not a document. */
  public static final int MAX_BYTES = 64 * 1024;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

  /** An empty set, for where no directory is read (a headless command). */
  public static final CustomCommands NONE = new CustomCommands(List.of());

  private final List<Path> directories;

  private CustomCommands(List<Path> directories) {
    this.directories = List.copyOf(directories);
  }

  /** The commands of {@code directories}; where two define one name, the first directory's wins. */
  public static CustomCommands in(List<Path> directories) {
    return new CustomCommands(directories);
  }

  /** The project's ({@code project} empty when it is not trusted) and the user's command directories, in that order. */
  public static CustomCommands of(Optional<Path> project, Path userConfigDirectory) {
    List<Path> directories = new ArrayList<>();
    project.ifPresent(root -> directories.add(root.resolve(".waymark").resolve("commands")));
    directories.add(userConfigDirectory.resolve("commands"));
    return new CustomCommands(directories);
  }

  /** One command: {@code /name}, what the menu says of it, its prompt, and the file it came from. */
  public record Entry(String name, String description, String template, Path file) {
    /** The prompt for {@code arguments}: each {@code $ARGUMENTS} replaced; without one, arguments go on a line of their own. */
    public String prompt(String arguments) {
      String args = arguments.strip();
      if (template.contains("$ARGUMENTS")) {
        return template.replace("$ARGUMENTS", args).strip();
      }
      return args.isEmpty() ? template.strip() : template.strip() + "\n\n" + args;
    }
  }

  /** Every command, by name. */
  public List<Entry> list() {
    Map<String, Entry> byName = new LinkedHashMap<>();
    for (Path directory : directories) {
      for (Entry entry : read(directory)) {
        byName.putIfAbsent(entry.name(), entry);
      }
    }
    return byName.values().stream().sorted(Comparator.comparing(Entry::name)).toList();
  }

  public Optional<Entry> find(String name) {
    return list().stream().filter(e -> e.name().equals(name)).findFirst();
  }

  private static List<Entry> read(Path directory) {
    List<Entry> found = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return found;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.md")) {
      for (Path file : files) {
        String fileName = file.getFileName().toString();
        String name = fileName.substring(0, fileName.length() - ".md".length());
        if (!NAME.matcher(name).matches() || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        text(file).map(text -> entry(name, text, file)).ifPresent(found::add);
      }
    } catch (IOException | RuntimeException e) {
      // an unreadable directory has no commands; the others still work
    }
    return found;
  }

  private static Optional<String> text(Path file) {
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes(MAX_BYTES + 1);
      return bytes.length > MAX_BYTES ? Optional.empty() : Optional.of(new String(bytes, StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  static Entry entry(String name, String text, Path file) {
    String body = text.replace("\r\n", "\n");
    String description = null;
    if (body.startsWith("---\n")) { // front matter, as Claude Code's commands have
      int end = body.indexOf("\n---", 4);
      if (end > 0) {
        for (String line : body.substring(4, end).split("\n")) {
          if (line.startsWith("description:")) {
            description = unquote(line.substring("description:".length()).strip());
          }
        }
        int next = body.indexOf('\n', end + 4);
        body = next < 0 ? "" : body.substring(next + 1);
      }
    }
    if (description == null) {
      description = body.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("")
          .replaceFirst("^#+\\s*", "");
    }
    if (description.length() > 80) {
      description = description.substring(0, 79) + "…";
    }
    return new Entry(name, description, body, file);
  }

  private static String unquote(String value) {
    if (value.length() >= 2 && (value.startsWith("\"") && value.endsWith("\"") || value.startsWith("'") && value.endsWith("'"))) {
      return value.substring(1, value.length() - 1);
    }
    return value;
  }
}
