package dev.waymark.core.tool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a path the model gave into a file inside the project, or refuses it.
 *
 * <p>Paths are relative to the project root; an absolute path is accepted only inside the root.
 * {@code ..} is refused outright (a model that climbs out of the project should be told so, not
 * quietly clamped). Every component that exists is resolved, links included, and must stay inside
 * the root's real path; the result is the <em>canonical</em> relative path, which is the one a
 * checkpoint records (the engine never records through a link).
 */
final class ProjectPaths {
  private final Path given;
  private final Path root;

  private ProjectPaths(Path given, Path root) {
    this.given = given;
    this.root = root;
  }

  static ProjectPaths of(Path projectRoot) throws ToolError {
    try {
      return new ProjectPaths(projectRoot.toAbsolutePath().normalize(), projectRoot.toRealPath());
    } catch (IOException e) {
      throw new ToolError("The project directory " + projectRoot + " cannot be read: " + e.getMessage());
    }
  }

  Path root() {
    return root;
  }

  /**
   * A resolved path: {@code relative} is canonical, project-relative with {@code /} ({@code ""}
   * for the root itself); {@code file} is where it is on disk.
   */
  record Resolved(String relative, Path file) {
    String display() {
      return relative.isEmpty() ? "." : relative;
    }
  }

  /** Resolves a path to read or list; {@code ""} and {@code "."} mean the root. */
  Resolved forRead(String path) throws ToolError {
    return resolve(path, false);
  }

  /** Resolves a file to write: also refuses the root, {@code .git} internals and links that lead nowhere. */
  Resolved forWrite(String path) throws ToolError {
    Resolved resolved = resolve(path, true);
    if (resolved.relative.isEmpty()) {
      throw new ToolError("\"" + path + "\" is the project directory, not a file.");
    }
    for (String segment : resolved.relative.split("/")) {
      if (segment.equalsIgnoreCase(".git")) {
        throw new ToolError("Refused: \"" + path + "\" is inside a .git directory; tools never write git's internals.");
      }
    }
    return resolved;
  }

  private Resolved resolve(String path, boolean write) throws ToolError {
    if (path.indexOf('\0') >= 0) {
      throw new ToolError("Refused: the path contains a NUL character.");
    }
    Path p;
    try {
      p = Path.of(path.isEmpty() ? "." : path);
    } catch (InvalidPathException e) {
      throw new ToolError("Not a valid path: \"" + path + "\".");
    }
    List<String> segments = new ArrayList<>();
    for (Path name : p) {
      if (name.toString().equals("..")) {
        throw new ToolError("Refused: \"" + path + "\" uses \"..\"; paths must stay inside the project (relative to its root).");
      }
    }
    if (p.isAbsolute()) {
      Path inside = p.startsWith(root) ? root.relativize(p) : p.startsWith(given) ? given.relativize(p) : null;
      if (inside == null) {
        throw new ToolError("Refused: \"" + path + "\" is outside the project; give a path relative to the project root.");
      }
      p = inside;
    }
    for (Path name : p) {
      String s = name.toString();
      if (!s.isEmpty() && !s.equals(".")) {
        segments.add(s);
      }
    }
    Path current = root;
    for (int i = 0; i < segments.size(); i++) {
      Path next = current.resolve(segments.get(i));
      if (!Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
        for (int j = i + 1; j < segments.size(); j++) {
          next = next.resolve(segments.get(j));
        }
        current = next;
        break;
      }
      if (Files.isSymbolicLink(next)) {
        Path target;
        try {
          target = next.toRealPath();
        } catch (IOException e) {
          throw new ToolError("Refused: \"" + root.relativize(next) + "\" is a symbolic link to a missing target"
              + (write ? "; tools do not write through such links." : "."));
        }
        if (!target.startsWith(root)) {
          throw new ToolError("Refused: \"" + root.relativize(next) + "\" is a symbolic link that leads outside the project.");
        }
        next = target;
      }
      current = next;
    }
    String relative = root.relativize(current).toString().replace(java.io.File.separatorChar, '/');
    return new Resolved(relative, current);
  }
}
