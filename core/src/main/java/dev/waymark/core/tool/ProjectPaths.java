package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.layer.View;
import dev.waymark.core.protocol.ErrorKind;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

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
  /** An isolated tab's view: paths are read as it shows them, and written in it (null: the project itself). */
  private final View view;

  private ProjectPaths(Path given, Path root, View view) {
    this.given = given;
    this.root = root;
    this.view = view;
  }

  static ProjectPaths of(Path projectRoot) throws ToolError {
    return of(projectRoot, null);
  }

  /** The paths of the tool call's tab: the project's, or an isolated tab's view of it. */
  static ProjectPaths of(ToolContext context) throws ToolError {
    Optional<Path> viewDir = context.turn() == null ? Optional.empty() : context.turn().viewDirectory();
    if (viewDir.isEmpty()) {
      return of(context.projectRoot(), null);
    }
    try {
      return of(context.projectRoot(), View.read(viewDir.get())
          .orElseThrow(() -> new ToolError(ErrorKind.NOT_FOUND, "The tab's view is gone from " + viewDir.get() + ".")));
    } catch (IOException e) {
      throw new ToolError(ErrorKind.STORE_IO, "The tab's view cannot be read: " + e.getMessage());
    }
  }

  private static ProjectPaths of(Path projectRoot, View view) throws ToolError {
    try {
      return new ProjectPaths(projectRoot.toAbsolutePath().normalize(), projectRoot.toRealPath(), view);
    } catch (IOException e) {
      throw new ToolError(ErrorKind.STORE_IO, "The project directory " + projectRoot + " cannot be read: " + e.getMessage());
    }
  }

  /** The isolated tab's view these paths are read in, if any. */
  Optional<View> view() {
    return Optional.ofNullable(view);
  }

  /**
   * Walks the files below {@code start} as {@link ProjectWalker} walks the project (in a view:
   * every file it shows, the excluded directories and {@code .git} left out).
   */
  void walk(String start, ProjectWalker.Visitor visitor) throws IOException {
    if (view == null) {
      ProjectWalker.seeingTracked(root).walk(start, visitor);
      return;
    }
    walkView(start, visitor);
  }

  private boolean walkView(String dir, ProjectWalker.Visitor visitor) throws IOException {
    for (String name : view.list(dir)) {
      String path = dir.isEmpty() ? name : dir + "/" + name;
      Optional<Path> file = view.locate(path);
      if (file.isEmpty()) {
        continue;
      }
      var attributes = Files.readAttributes(file.get(), BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS);
      if (attributes.isDirectory()) {
        if (name.equals(".git") || ProjectWalker.EXCLUDED_DIRECTORIES.contains(name)) {
          continue;
        }
        if (!walkView(path, visitor)) {
          return false;
        }
      } else if (!visitor.entry(path, file.get(), attributes)) {
        return false;
      }
    }
    return true;
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
      throw new ToolError(ErrorKind.REFUSED, "\"" + path + "\" is the project directory, not a file.");
    }
    for (String segment : resolved.relative.split("/")) {
      if (segment.equalsIgnoreCase(".git")) {
        throw new ToolError(ErrorKind.REFUSED, "Refused: \"" + path + "\" is inside a .git directory; tools never write git's internals.");
      }
    }
    return resolved;
  }

  private Resolved resolve(String path, boolean write) throws ToolError {
    if (path.indexOf('\0') >= 0) {
      throw new ToolError(ErrorKind.REFUSED, "Refused: the path contains a NUL character.");
    }
    Path p;
    try {
      p = Path.of(path.isEmpty() ? "." : path);
    } catch (InvalidPathException e) {
      throw new ToolError(ErrorKind.REFUSED, "Not a valid path: \"" + path + "\".");
    }
    List<String> segments = new ArrayList<>();
    for (Path name : p) {
      if (name.toString().equals("..")) {
        throw new ToolError(ErrorKind.REFUSED, "Refused: \"" + path + "\" uses \"..\"; paths must stay inside the project (relative to its root).");
      }
    }
    if (p.isAbsolute()) {
      Path inside = p.startsWith(root) ? root.relativize(p) : p.startsWith(given) ? given.relativize(p) : null;
      if (inside == null) {
        throw new ToolError(ErrorKind.REFUSED, "Refused: \"" + path + "\" is outside the project; give a path relative to the project root.");
      }
      p = inside;
    }
    for (Path name : p) {
      String s = name.toString();
      if (!s.isEmpty() && !s.equals(".")) {
        segments.add(s);
      }
    }
    if (view != null) {
      return inView(path, segments);
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
          throw new ToolError(ErrorKind.REFUSED, "Refused: \"" + root.relativize(next) + "\" is a symbolic link to a missing target"
              + (write ? "; tools do not write through such links." : "."));
        }
        if (!target.startsWith(root)) {
          throw new ToolError(ErrorKind.REFUSED, "Refused: \"" + root.relativize(next) + "\" is a symbolic link that leads outside the project.");
        }
        next = target;
      }
      current = next;
    }
    String relative = root.relativize(current).toString().replace(File.separatorChar, '/');
    return new Resolved(relative, current);
  }

  /**
   * {@code segments} resolved in the view: a link it shows is followed (its target taken in the
   * view too) and must stay in the project; what the view does not show resolves to a path where
   * nothing is.
   */
  private Resolved inView(String given, List<String> segments) throws ToolError {
    List<String> at = new ArrayList<>();
    Deque<String> rest = new ArrayDeque<>(segments);
    int links = 0;
    try {
      while (!rest.isEmpty()) {
        String segment = rest.removeFirst();
        at.add(segment);
        String sofar = String.join("/", at);
        Optional<Path> entry = view.locate(sofar);
        if (entry.isEmpty() || !Files.isSymbolicLink(entry.get())) {
          continue;
        }
        if (++links > 16) {
          throw new ToolError(ErrorKind.REFUSED, "Refused: \"" + sofar + "\" is a loop of symbolic links.");
        }
        Path target = Files.readSymbolicLink(entry.get());
        Path resolved = (target.isAbsolute() ? target : root.resolve(sofar).getParent().resolve(target)).normalize();
        if (!resolved.startsWith(root)) {
          throw new ToolError(ErrorKind.REFUSED, "Refused: \"" + sofar + "\" is a symbolic link that leads outside the project.");
        }
        at.clear();
        List<String> linked = new ArrayList<>();
        root.relativize(resolved).forEach(p -> linked.add(p.toString()));
        linked.removeIf(String::isEmpty);
        for (int i = linked.size() - 1; i >= 0; i--) {
          rest.addFirst(linked.get(i));
        }
      }
      String relative = String.join("/", at);
      Path file = relative.isEmpty() ? root
          : view.locate(relative).orElse(view.directory().resolve("nothing").resolve(relative));
      return new Resolved(relative, file);
    } catch (IOException e) {
      throw new ToolError(ErrorKind.STORE_IO, "\"" + given + "\" cannot be read in the tab's view: " + e.getMessage());
    }
  }
}
