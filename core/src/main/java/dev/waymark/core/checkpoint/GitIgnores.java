package dev.waymark.core.checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.ignore.IgnoreNode;
import org.eclipse.jgit.lib.CoreConfig;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.util.FS;

/**
 * Whether git ignores a path of a repository's work tree, as {@code git check-ignore} answers for
 * an untracked path: the {@code .gitignore} files from the path's directory up to the top, then
 * {@code info/exclude}, then {@code core.excludesFile}; a path under an ignored directory is ignored.
 * Each ignore file is read once, from disk.
 */
final class GitIgnores {
  private final Path workTree;
  private final List<IgnoreNode> outer = new ArrayList<>(); // info/exclude, then core.excludesFile
  private final Map<String, IgnoreNode> byDirectory = new HashMap<>();

  GitIgnores(Repository repo) {
    this.workTree = repo.getWorkTree().toPath();
    outer.add(read(repo.getDirectory().toPath().resolve("info").resolve("exclude")));
    String excludes = repo.getConfig().get(CoreConfig.KEY).getExcludesFile();
    if (excludes != null) {
      outer.add(read(FS.DETECTED.resolve(null, excludes).toPath()));
    } else {
      String xdg = System.getenv("XDG_CONFIG_HOME");
      Path config = xdg == null || xdg.isEmpty() ? Path.of(System.getProperty("user.home"), ".config") : Path.of(xdg);
      outer.add(read(config.resolve("git").resolve("ignore")));
    }
  }

  /** Whether {@code path} (slash-separated, from the top of the work tree) is ignored. */
  boolean ignored(String path) {
    String[] names = path.split("/");
    StringBuilder at = new StringBuilder();
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        at.append('/');
      }
      at.append(names[i]);
      if (ignoredHere(at.toString(), i < names.length - 1)) {
        return true; // git does not look inside an ignored directory
      }
    }
    return false;
  }

  /** The deepest rule that names {@code path} decides, its own directory's file first. */
  private boolean ignoredHere(String path, boolean isDirectory) {
    int slash = path.lastIndexOf('/');
    String dir = slash < 0 ? "" : path.substring(0, slash);
    while (true) {
      IgnoreNode node = byDirectory.computeIfAbsent(dir,
          d -> read((d.isEmpty() ? workTree : workTree.resolve(d)).resolve(".gitignore")));
      Boolean verdict = node.checkIgnored(dir.isEmpty() ? path : path.substring(dir.length() + 1), isDirectory);
      if (verdict != null) {
        return verdict;
      }
      if (dir.isEmpty()) {
        break;
      }
      int up = dir.lastIndexOf('/');
      dir = up < 0 ? "" : dir.substring(0, up);
    }
    for (IgnoreNode node : outer) {
      Boolean verdict = node.checkIgnored(path, isDirectory);
      if (verdict != null) {
        return verdict;
      }
    }
    return false;
  }

  private static IgnoreNode read(Path file) {
    IgnoreNode node = new IgnoreNode();
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      try (InputStream in = Files.newInputStream(file)) {
        node.parse(file.toString(), in);
      } catch (IOException unreadable) {
        // as git does with a file it cannot read: no rules from it
      }
    }
    return node;
  }
}
