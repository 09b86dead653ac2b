package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerChange;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The fence that keeps a sandboxed command from making git run a program later, outside the
 * sandbox: a change of its layer that would leave git settings, a hook or attributes that run a
 * program ({@link GitProgramSettings}) in any repository of the project is refused before the
 * apply, and the rest is applied. The sandbox makes the project's own {@code .git} read-only,
 * but a repository the command makes ({@code git init}), a nested one ({@code vendor/lib/.git}),
 * one a {@code .git} file or link leads to, and a bare layout git would find by itself cannot be
 * bound without walking the project: this looks at the changed paths only.
 *
 * <p>What it looks at, per changed path (never a walk): a {@code config} or {@code config.worktree}
 * in a git directory, a file in its {@code hooks/}, its {@code info/attributes}; a {@code .git}
 * file or link, by where it leads; and {@code HEAD}, {@code objects}, {@code refs},
 * {@code commondir}, which turn a directory into one git reads as a repository, with the settings
 * and hooks it already held. A git directory is one named {@code .git}, one below such a
 * directory ({@code .git/modules/x}), or one with {@code HEAD}, {@code objects/} and {@code refs/}
 * after the command. Deletions are never refused.
 */
final class GitProgramGuard {
  /** A change not applied, and why. A refused directory takes everything below it along. */
  record Refused(String path, String why) {}

  private static final String NOT_APPLIED = "not applied: ";
  private static final String WHY = "; Waymark refuses what would make git run a program outside the sandbox";
  private static final long MAX_SETTINGS = 1 << 20;
  private static final Set<String> LAYOUT = Set.of("HEAD", "objects", "refs", "commondir");

  private final Path project;
  /** The command's change of each path it changed: with the project below, what the project will hold after the apply. */
  private final Map<String, LayerChange> changed = new HashMap<>();

  private GitProgramGuard(Layer layer, List<LayerChange> changes) {
    this.project = layer.project();
    changes.forEach(c -> changed.put(c.path(), c)); // a kind change lists the deletion first
  }

  /** The changes of {@code layer} to refuse. */
  static List<Refused> refused(Layer layer, List<LayerChange> changes) throws IOException {
    GitProgramGuard guard = new GitProgramGuard(layer, changes);
    List<Refused> refused = new ArrayList<>();
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.DELETED) {
        guard.why(change).ifPresent(why -> refused.add(new Refused(change.path(), NOT_APPLIED + why + WHY)));
      }
    }
    return refused;
  }

  /** {@code changes} without the refused ones and what lies below them. */
  static List<LayerChange> without(List<LayerChange> changes, List<Refused> refused) {
    if (refused.isEmpty()) {
      return changes;
    }
    Set<String> roots = new HashSet<>();
    refused.forEach(r -> roots.add(r.path()));
    return changes.stream().filter(c -> c.kind() == LayerChange.Kind.DELETED || !below(c.path(), roots)).toList();
  }

  private static boolean below(String path, Set<String> roots) {
    for (String p = path; p != null; p = parent(p)) {
      if (roots.contains(p)) {
        return true;
      }
    }
    return false;
  }

  private Optional<String> why(LayerChange change) throws IOException {
    String path = change.path();
    String name = name(path);
    String dir = parent(path);
    String dirName = dir == null ? "" : name(dir);
    String gitDir = dir == null ? null : parent(dir);
    boolean link = change.kind() == LayerChange.Kind.SYMLINK;
    if (name.equals(".git") && change.kind() != LayerChange.Kind.DIRECTORY) {
      Optional<String> target = leadsTo(change);
      return target.isEmpty() ? Optional.empty()
          : newGitDirRunning(target.get()).map(why -> "it leads git to " + target.get() + "/, where " + why);
    }
    if ((name.equals("config") || name.equals("config.worktree")) && gitDirectory(dir)) {
      return link ? Optional.of("git would read its settings from wherever the link leads")
          : settingsIn(path, gitDirectoryBefore(dir)).map(key -> "git would run the program its setting " + key + " names");
    }
    if (dirName.equals("hooks") && gitDirectory(gitDir) && GitProgramSettings.isHook(name)) {
      return Optional.of("a hook, which git runs");
    }
    if (dirName.equals("info") && name.equals("attributes") && gitDirectory(gitDir)) {
      return link || GitProgramSettings.selectsADriver(text(path).orElse("filter"))
          ? Optional.of("attributes that hand files to a filter or driver program") : Optional.empty();
    }
    if (LAYOUT.contains(name) && dir != null && !gitDirectoryBefore(dir) && gitDirectoryAfter(dir)) {
      return newGitDirRunning(dir).map(why -> "it makes " + dir + "/ a repository git reads, where " + why);
    }
    return Optional.empty();
  }

  /**
   * Why {@code dir}, a git directory after the command but not before it, would run a program:
   * its settings, hooks or attributes as the command leaves them. Empty: it would not, or it was a
   * repository already (whose own files are checked as they change).
   */
  private Optional<String> newGitDirRunning(String dir) throws IOException {
    if (gitDirectoryBefore(dir) || !gitDirectoryAfter(dir)) {
      return Optional.empty();
    }
    String config = dir + "/config";
    if (exists(config)) {
      Optional<String> key = settingsIn(config, false); // no repository read them before: none is the user's
      if (key.isPresent()) {
        return Optional.of("its setting " + key.get() + " names a program");
      }
    }
    for (String hook : names(dir + "/hooks")) {
      if (GitProgramSettings.isHook(hook)) {
        return Optional.of("its hook " + hook + " would run");
      }
    }
    String attributes = dir + "/info/attributes";
    if (exists(attributes) && GitProgramSettings.selectsADriver(text(attributes).orElse("filter"))) {
      return Optional.of("its attributes hand files to a filter or driver program");
    }
    return Optional.empty();
  }

  /** The project path a {@code .git} file ("gitdir: ...") or link leads to; empty when it leads out of the project. */
  private Optional<String> leadsTo(LayerChange pointer) throws IOException {
    String target;
    if (pointer.kind() == LayerChange.Kind.SYMLINK) {
      target = Files.readSymbolicLink(pointer.source()).toString();
    } else {
      Optional<String> text = text(pointer.path());
      if (text.isEmpty()) {
        return Optional.empty();
      }
      String first = text.get().lines().findFirst().orElse("").strip();
      if (!first.startsWith("gitdir:")) {
        return Optional.empty();
      }
      target = first.substring("gitdir:".length()).strip();
    }
    Path from = project.resolve(pointer.path()).getParent();
    Path resolved = from.resolve(target).normalize();
    if (!resolved.startsWith(project) || resolved.equals(project)) {
      return Optional.empty(); // out of the command's reach: the sandbox keeps it read-only
    }
    return Optional.of(project.relativize(resolved).toString());
  }

  /** A git directory for the settings and hooks in it: named .git, below one, or laid out as one. */
  private boolean gitDirectory(String dir) throws IOException {
    if (dir == null) {
      return false;
    }
    for (String part : dir.split("/")) {
      if (part.equals(".git")) {
        return true;
      }
    }
    return gitDirectoryAfter(dir) || gitDirectoryBefore(dir);
  }

  /** Whether git reads {@code dir} as a repository once the command's changes are made (HEAD, objects/, refs/). */
  private boolean gitDirectoryAfter(String dir) throws IOException {
    BasicFileAttributes head = after(dir + "/HEAD");
    BasicFileAttributes objects = after(dir + "/objects");
    BasicFileAttributes refs = after(dir + "/refs");
    return head != null && !head.isDirectory() && objects != null && objects.isDirectory() && refs != null
        && refs.isDirectory();
  }

  private boolean gitDirectoryBefore(String dir) throws IOException {
    BasicFileAttributes head = attributes(project.resolve(dir + "/HEAD"));
    return head != null && !head.isDirectory() && Files.isDirectory(project.resolve(dir + "/objects"), LinkOption.NOFOLLOW_LINKS)
        && Files.isDirectory(project.resolve(dir + "/refs"), LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * What is at {@code path} once the changes are made (not followed if a link); null: nothing. A
   * path the command did not change is the project's, unless a directory above it was deleted or
   * replaced by a file (an opaque directory's lower entries are deletions of their own).
   */
  private BasicFileAttributes after(String path) throws IOException {
    LayerChange own = changed.get(path);
    if (own != null) {
      return own.kind() == LayerChange.Kind.DELETED ? null : attributes(own.source());
    }
    for (String p = parent(path); p != null; p = parent(p)) {
      LayerChange above = changed.get(p);
      if (above != null && above.kind() != LayerChange.Kind.DIRECTORY) {
        return null;
      }
    }
    return attributes(project.resolve(path));
  }

  private boolean exists(String path) throws IOException {
    return after(path) != null;
  }

  /** The names in directory {@code dir} once the changes are made. */
  private Set<String> names(String dir) throws IOException {
    Set<String> names = new TreeSet<>();
    list(project.resolve(dir), names);
    LayerChange change = changed.get(dir);
    if (change != null && change.kind() == LayerChange.Kind.DIRECTORY) {
      list(change.source(), names);
    }
    Set<String> there = new TreeSet<>();
    for (String name : names) {
      if (exists(dir + "/" + name)) {
        there.add(name);
      }
    }
    return there;
  }

  private static void list(Path dir, Set<String> into) throws IOException {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      entries.forEach(e -> into.add(e.getFileName().toString()));
    } catch (NoSuchFileException gone) {
      // nothing there
    }
  }

  /**
   * The setting in the config file at {@code path} (after the changes) that runs a program; with
   * {@code ofARepository} (the file belongs to a repository that was one before the command), one
   * the project's file held already is not the command's but the user's.
   */
  private Optional<String> settingsIn(String path, boolean ofARepository) throws IOException {
    Optional<String> text = text(path);
    if (text.isEmpty()) {
      return Optional.of("(a file too large or unreadable to check)");
    }
    Path before = project.resolve(path);
    BasicFileAttributes was = ofARepository ? attributes(before) : null;
    String old = was != null && was.isRegularFile() && was.size() <= MAX_SETTINGS
        ? new String(Files.readAllBytes(before), StandardCharsets.UTF_8) : "";
    return GitProgramSettings.runsAProgram(text.get(), old);
  }

  /** The text at {@code path} once the changes are made; empty when there is none, or too much to be settings. */
  private Optional<String> text(String path) throws IOException {
    LayerChange change = changed.get(path);
    Path file = change != null && change.source() != null ? change.source() : project.resolve(path);
    BasicFileAttributes attributes = attributes(file);
    if (attributes == null || !attributes.isRegularFile() || attributes.size() > MAX_SETTINGS) {
      return Optional.empty();
    }
    return Optional.of(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
  }

  private static BasicFileAttributes attributes(Path path) throws IOException {
    try {
      return Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException missing) {
      return null;
    } catch (FileSystemException notADirectory) {
      if (notADirectory.getReason() != null && notADirectory.getReason().contains("Not a directory")) {
        return null;
      }
      throw notADirectory;
    }
  }

  private static String parent(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? null : path.substring(0, slash);
  }

  private static String name(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
