package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.util.FS;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's own git repository around a project, read and never written: its index (to know a
 * clean file's content without reading it) and the ignore sources around the project; its settings
 * are read by {@link UserGitConfig} and its objects (the earlier content of a file a shell
 * command changed) by {@link UserObjects}.
 *
 * <p>Nothing here takes a lock or writes a file in the user's repository: the index is read as
 * {@code git status} reads it, without refreshing it.
 */
public final class UserGitRepository implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UserGitRepository.class);

  /** What the user's index says of one tracked file, under the project. */
  public record Tracked(FileKind kind, long size, long mtimeNanos, ObjectId blob) {}

  private final Path workTree;
  private final Path gitDir;
  private final Path commonDir;
  private final String projectPrefix;
  private final boolean convertsEverything;
  private final UserGitConfig config;
  private final UserObjects objects;
  private Index index;

  private UserGitRepository(Path workTree, Path gitDir, Path commonDir, String projectPrefix) {
    this.workTree = workTree;
    this.gitDir = gitDir;
    this.commonDir = commonDir;
    this.projectPrefix = projectPrefix;
    // the environment does not change while Waymark runs
    this.config = new UserGitConfig(workTree, commonDir,
        UserGitConfig.UserFiles.of(System.getenv(), System.getProperty("user.home")));
    this.convertsEverything = config.convertsLineEndings();
    this.objects = new UserObjects(workTree, commonDir, projectPrefix, config.normalisesEverything());
  }

  /** The repository whose work tree holds {@code project}, if any. */
  public static Optional<UserGitRepository> find(Path project) {
    for (Path dir = project; dir != null; dir = dir.getParent()) {
      Path dotGit = dir.resolve(Constants.DOT_GIT);
      try {
        Path found = null;
        if (Files.isDirectory(dotGit, LinkOption.NOFOLLOW_LINKS) && Files.isRegularFile(dotGit.resolve("HEAD"))) {
          found = dotGit;
        } else if (Files.isRegularFile(dotGit, LinkOption.NOFOLLOW_LINKS)) {
          String text = Files.readString(dotGit, StandardCharsets.UTF_8).trim();
          if (text.startsWith("gitdir:")) {
            Path target = Path.of(text.substring("gitdir:".length()).trim());
            found = dir.resolve(target).normalize();
          }
        }
        if (found != null && Files.isDirectory(found)) {
          Path common = found;
          Path commonFile = found.resolve("commondir");
          if (Files.isRegularFile(commonFile)) {
            common = found.resolve(Files.readString(commonFile, StandardCharsets.UTF_8).trim()).normalize();
          }
          String prefix = dir.equals(project) ? "" : dir.relativize(project).toString().replace(File.separatorChar, '/') + "/";
          return Optional.of(new UserGitRepository(dir, found, common, prefix));
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("cannot read {}: {}", dotGit, e.toString());
        return Optional.empty();
      }
    }
    return Optional.empty();
  }

  Path workTree() {
    return workTree;
  }

  /** The project's path inside the work tree, ending with {@code /}, or {@code ""} at its root. */
  String projectPrefix() {
    return projectPrefix;
  }

  /**
   * The ignore rules git applies above the project's own {@code .gitignore} files, lowest
   * priority first: {@code core.excludesFile} (default {@code $XDG_CONFIG_HOME/git/ignore}),
   * {@code info/exclude}, and the {@code .gitignore} files of the directories from the work
   * tree's root down to the project's parent. Each node's patterns are relative to
   * {@link #workTree()} plus the returned prefix.
   */
  public IgnoreContext ignoreContext() {
    return new IgnoreContext(projectPrefix, outerIgnoreSources());
  }

  private List<IgnoreSource> outerIgnoreSources() {
    List<IgnoreSource> sources = new ArrayList<>();
    config.excludesFile().ifPresent(file -> sources.add(new IgnoreSource("", IgnoreRules.parse(file),
        Exclusion.EXCLUDES_FILE)));
    sources.add(new IgnoreSource("", IgnoreRules.parse(commonDir.resolve("info/exclude")),
        Exclusion.GIT_INFO_EXCLUDE));
    if (!projectPrefix.isEmpty()) {
      String[] segments = projectPrefix.split("/");
      StringBuilder prefix = new StringBuilder();
      sources.add(new IgnoreSource("", IgnoreRules.parse(workTree.resolve(".gitignore")),
          Exclusion.IGNORED));
      for (int i = 0; i < segments.length - 1; i++) {
        prefix.append(segments[i]).append('/');
        sources.add(new IgnoreSource(prefix.toString(),
            IgnoreRules.parse(workTree.resolve(prefix.toString()).resolve(".gitignore")),
            Exclusion.IGNORED));
      }
    }
    sources.removeIf(s -> s.node() == null);
    return sources;
  }

  /**
   * The index file's stat, when it is one Waymark takes contents from; {@link FileStat#MISSING}
   * when there is none or when git converts every file (the index then never vouches for one).
   */
  public FileStat indexStamp() {
    try {
      FileStat stamp = FileStat.read(gitDir.resolve("index"));
      return convertsEverything ? FileStat.MISSING : stamp;
    } catch (IOException e) {
      return FileStat.MISSING;
    }
  }

  /**
   * The index's entries under the project, by project-relative path, when the index can be
   * trusted for them: stage 0, neither assume-valid nor skip-worktree, not racily clean, and not
   * converted by git on checkout (a filter such as {@code filter=lfs}, {@code eol=crlf},
   * {@code ident}, {@code working-tree-encoding}), since then the blob is not the file's bytes.
   * Read again only when the index file changed. With the stat of the index file they were read from.
   */
  public synchronized Index index() {
    Path indexFile = gitDir.resolve("index");
    FileStat stamp = indexStamp();
    if (stamp.kind() == FileKind.ABSENT) {
      return Index.NONE;
    }
    if (index != null && index.stamp.equals(stamp)) {
      return index;
    }
    Map<String, Tracked> tracked = new HashMap<>();
    try {
      DirCache cache = DirCache.read(indexFile.toFile(), FS.DETECTED);
      List<String> nestedAttributes = new ArrayList<>();
      for (int i = 0; i < cache.getEntryCount(); i++) {
        String path = cache.getEntry(i).getPathString();
        if (path.endsWith("/.gitattributes")) {
          nestedAttributes.add(path);
        }
      }
      Conversions conversions = Conversions.read(workTree, commonDir, nestedAttributes);
      long indexMtime = stamp.mtimeNanos();
      for (int i = 0; i < cache.getEntryCount(); i++) {
        DirCacheEntry e = cache.getEntry(i);
        String path = e.getPathString();
        if (!path.startsWith(projectPrefix) || e.getStage() != DirCacheEntry.STAGE_0 || e.isAssumeValid()
            || e.isSkipWorkTree() || e.isIntentToAdd() || e.isSmudged()) {
          continue;
        }
        FileKind kind = kindOf(e.getFileMode());
        var modified = e.getLastModifiedInstant();
        long mtime = modified.getEpochSecond() * 1_000_000_000L + modified.getNano();
        // Racily clean (git's rule): written in the same tick as the index, it may have changed since.
        if (kind == FileKind.ABSENT || mtime >= indexMtime || conversions.converts(path)) {
          continue;
        }
        tracked.put(path.substring(projectPrefix.length()), new Tracked(kind, e.getLength(), mtime, e.getObjectId()));
      }
    } catch (IOException | RuntimeException e) {
      LOG.info("cannot read the git index {}; every file is read instead: {}", indexFile, e.toString());
      tracked.clear();
    }
    index = new Index(stamp, Collections.unmodifiableMap(tracked)); // not copied: 100,000 entries
    return index;
  }

  /**
   * Every path the index holds under the project (any stage, any flag), project-relative and
   * sorted: what git tracks, which no ignore rule may hide. Read again only when the index file
   * changed; empty without an index.
   */
  public synchronized NavigableSet<String> trackedPaths() {
    FileStat stamp;
    try {
      stamp = FileStat.read(gitDir.resolve("index"));
    } catch (IOException e) {
      stamp = FileStat.MISSING;
    }
    if (trackedPaths != null && trackedPathsStamp.equals(stamp)) {
      return trackedPaths;
    }
    TreeSet<String> paths = new TreeSet<>();
    if (stamp.kind() != FileKind.ABSENT) {
      try {
        DirCache cache = DirCache.read(gitDir.resolve("index").toFile(), FS.DETECTED);
        for (int i = 0; i < cache.getEntryCount(); i++) {
          String path = cache.getEntry(i).getPathString();
          if (path.startsWith(projectPrefix)) {
            paths.add(path.substring(projectPrefix.length()));
          }
        }
      } catch (IOException | RuntimeException e) {
        LOG.info("cannot read the git index of {}; ignore rules apply to tracked files too: {}", workTree, e.toString());
      }
    }
    trackedPaths = Collections.unmodifiableNavigableSet(paths);
    trackedPathsStamp = stamp;
    return trackedPaths;
  }

  private NavigableSet<String> trackedPaths;
  private FileStat trackedPathsStamp = FileStat.MISSING;

  private static FileKind kindOf(FileMode mode) {
    if (mode == FileMode.REGULAR_FILE) {
      return FileKind.REGULAR;
    }
    if (mode == FileMode.EXECUTABLE_FILE) {
      return FileKind.EXECUTABLE;
    }
    if (mode == FileMode.SYMLINK) {
      return FileKind.SYMLINK;
    }
    return FileKind.ABSENT; // gitlinks (submodules)
  }

  /** The repository's own object directory (not its alternates). */
  public Path objectsDirectory() {
    return commonDir.resolve("objects");
  }

  /** Opens the object database ahead of the first read, which then does not wait for its pack indexes to load. */
  public void openObjects() {
    objects.open();
  }

  /** See {@link UserObjects#readBlob(ObjectId, long, java.util.function.BooleanSupplier)}. */
  public Optional<byte[]> readBlob(ObjectId blob, long expectedSize, BooleanSupplier crlfMayBeGone) {
    return objects.readBlob(blob, expectedSize, crlfMayBeGone);
  }

  /** See {@link UserObjects#normalisesLineEndings}. */
  public boolean normalisesLineEndings(String path) {
    return objects.normalisesLineEndings(path);
  }

  @Override
  public void close() {
    objects.close();
  }

  /** The index's usable entries, and the stat of the index file they were read from. */
  public record Index(FileStat stamp, Map<String, Tracked> tracked) {
    public static final Index NONE = new Index(FileStat.MISSING, Map.of());
  }
}
