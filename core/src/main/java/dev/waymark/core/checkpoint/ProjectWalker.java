package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.eclipse.jgit.ignore.IgnoreNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Walks a project's files the way the user thinks of them: without the directories nobody edits
 * by hand ({@link #EXCLUDED_DIRECTORIES}) and without what {@code .gitignore} files leave out.
 *
 * <p>Ignore rules follow git: the root's {@code .git/info/exclude}, then each directory's
 * {@code .gitignore}, a deeper file overriding a shallower one; an ignored directory is not
 * entered, so nothing under it can be re-included. Links are reported as entries and never
 * followed, so a walk never leaves the project. Entries come in name order, for stable output.
 *
 * <p>Used by the shell change tracker (to find what a command changed) and by the file-finding
 * tools, so that both see the same files.
 */
public final class ProjectWalker {
  private static final Logger LOG = LoggerFactory.getLogger(ProjectWalker.class);

  /** Directory names never walked, at any depth: version control, dependencies, build output, caches. */
  public static final Set<String> EXCLUDED_DIRECTORIES = Set.of(".git", "node_modules", "target", "build", "dist",
      ".venv", "__pycache__", ".gradle", ".idea");

  /** Why an entry was left out. */
  public enum Exclusion {
    /** One of {@link #EXCLUDED_DIRECTORIES}, or a {@code .git} file. */
    BUILT_IN,
    /** Matched by a {@code .gitignore} file or {@code .git/info/exclude}. */
    IGNORED
  }

  /** Receives the walk's entries. */
  public interface Visitor {
    /**
     * A file, link or other non-directory entry that is not excluded. {@code path} is
     * project-relative with {@code /}. Returns false to end the walk.
     */
    boolean entry(String path, Path file, BasicFileAttributes attributes) throws IOException;

    /** An excluded entry; a directory is not entered. */
    default void excluded(String path, Path file, BasicFileAttributes attributes, Exclusion why) {}
  }

  private final Path root;
  private final boolean posix;
  private final IgnoreNode exclusions;

  public ProjectWalker(Path root) {
    this(root, List.of());
  }

  /** A walker that also leaves out {@code exclusions}: patterns in .gitignore syntax, from the root, that win over .gitignore. */
  public ProjectWalker(Path root, List<String> exclusions) {
    this.root = root;
    this.posix = root.getFileSystem().supportedFileAttributeViews().contains("posix");
    IgnoreNode node = new IgnoreNode();
    try {
      node.parse("settings", new java.io.ByteArrayInputStream(String.join("\n", exclusions).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new IllegalStateException(e); // reading from memory
    }
    this.exclusions = node.getRules().isEmpty() ? null : node;
  }

  /** Walks the whole project. */
  public void walk(Visitor visitor) throws IOException {
    walk("", visitor);
  }

  /**
   * Walks the directory {@code start} (project-relative, {@code ""} for the root) under the ignore
   * rules of its ancestors. {@code start} itself is walked even when excluded: it was asked for.
   */
  public void walk(String start, Visitor visitor) throws IOException {
    List<Frame> frames = new ArrayList<>();
    frames.add(new Frame("", parse(root.resolve(".git/info/exclude"))));
    frames.add(new Frame("", parse(root.resolve(".gitignore"))));
    if (!start.isEmpty()) {
      String[] segments = start.split("/");
      StringBuilder prefix = new StringBuilder();
      for (int i = 0; i < segments.length - 1; i++) {
        prefix.append(segments[i]).append('/');
        frames.add(new Frame(prefix.toString(), parse(root.resolve(prefix.toString()).resolve(".gitignore"))));
      }
    }
    walkDirectory(start, frames, visitor);
  }

  /** Reads attributes without following a link: POSIX ones (with permissions) where supported. */
  public BasicFileAttributes attributes(Path file) throws IOException {
    if (posix) {
      return Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }
    return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  /** Returns false when the visitor ended the walk. */
  private boolean walkDirectory(String dir, List<Frame> frames, Visitor visitor) throws IOException {
    Path dirPath = dir.isEmpty() ? root : root.resolve(dir);
    String prefix = dir.isEmpty() ? "" : dir + "/";
    List<Frame> here = frames;
    if (!dir.isEmpty()) {
      IgnoreNode node = parse(dirPath.resolve(".gitignore"));
      if (node != null) {
        here = new ArrayList<>(frames);
        here.add(new Frame(prefix, node));
      }
    }
    TreeMap<String, Path> children = new TreeMap<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dirPath)) {
      for (Path child : stream) {
        children.put(child.getFileName().toString(), child);
      }
    } catch (NoSuchFileException gone) {
      return true;
    } catch (IOException e) {
      LOG.debug("cannot list {}: {}", dirPath, e.toString());
      return true;
    }
    for (var child : children.entrySet()) {
      String name = child.getKey();
      String path = prefix + name;
      BasicFileAttributes attributes;
      try {
        attributes = attributes(child.getValue());
      } catch (NoSuchFileException gone) {
        continue;
      }
      boolean isDir = attributes.isDirectory();
      if (name.equals(".git") || isDir && EXCLUDED_DIRECTORIES.contains(name)) {
        visitor.excluded(path, child.getValue(), attributes, Exclusion.BUILT_IN);
        continue;
      }
      if ((exclusions != null && Boolean.TRUE.equals(exclusions.checkIgnored(path, isDir))) || ignored(here, path, isDir)) {
        visitor.excluded(path, child.getValue(), attributes, Exclusion.IGNORED);
        continue;
      }
      if (isDir) {
        if (!walkDirectory(path, here, visitor)) {
          return false;
        }
      } else if (!visitor.entry(path, child.getValue(), attributes)) {
        return false;
      }
    }
    return true;
  }

  private static boolean ignored(List<Frame> frames, String path, boolean isDir) {
    for (int i = frames.size() - 1; i >= 0; i--) {
      Frame frame = frames.get(i);
      if (frame.node == null || !path.startsWith(frame.prefix)) {
        continue;
      }
      Boolean verdict = frame.node.checkIgnored(path.substring(frame.prefix.length()), isDir);
      if (verdict != null) {
        return verdict;
      }
    }
    return false;
  }

  private static IgnoreNode parse(Path file) {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    IgnoreNode node = new IgnoreNode();
    try (InputStream in = Files.newInputStream(file)) {
      node.parse(file.toString(), in);
    } catch (IOException e) {
      LOG.debug("cannot read {}: {}", file, e.toString());
      return null;
    }
    return node.getRules().isEmpty() ? null : node;
  }

  private record Frame(String prefix, IgnoreNode node) {}
}
