package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileStat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFileAttributes;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Walks a project's files the way the user thinks of them: without the directories nobody edits
 * by hand ({@link #EXCLUDED_DIRECTORIES}) and without what {@code .gitignore} files leave out.
 *
 * <p>Ignore rules follow git, lowest priority first: {@code core.excludesFile} (default
 * {@code $XDG_CONFIG_HOME/git/ignore}), the enclosing repository's {@code info/exclude}, the
 * {@code .gitignore} files from that repository's root down, a deeper file overriding a shallower
 * one; an ignored directory is not entered, so nothing under it can be re-included. The user's
 * git configuration is read for {@code core.excludesFile} only, and nothing of it is written. Links are reported as entries and never
 * followed, so a walk never leaves the project. Entries come in name order, for stable output.
 *
 * <p>Used by the shell change tracker (to find what a command changed) and by the file-finding
 * tools, so that both see the same files.
 */
public final class ProjectWalker {
  private static final Logger LOG = LoggerFactory.getLogger(ProjectWalker.class);

  /** Directory names never walked, at any depth: version control, dependencies, build output, caches. */
  public static final Set<String> EXCLUDED_DIRECTORIES = ExclusionRules.EXCLUDED_DIRECTORIES;

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
  private final ExclusionRules exclusions;
  private final CaptureThreads threads;
  private volatile Kept kept = Kept.NONE;

  public ProjectWalker(Path root) {
    this(root, List.of());
  }

  /** A walker that also leaves out {@code exclusions}: patterns in .gitignore syntax, from the root, that win over .gitignore. */
  public ProjectWalker(Path root, List<String> exclusions) {
    this(root, exclusions, UserGitRepository.find(root).map(UserGitRepository::ignoreContext).orElse(IgnoreContext.NONE));
  }

  public ProjectWalker(Path root, List<String> exclusions, IgnoreContext context) {
    this(root, exclusions, context, CaptureThreads.PROCESS);
  }

  /** A walker whose {@link #scan}s run on {@code threads}, whoever owns them. */
  public ProjectWalker(Path root, List<String> exclusions, IgnoreContext context, CaptureThreads threads) {
    this.root = root;
    this.posix = root.getFileSystem().supportedFileAttributeViews().contains("posix");
    this.exclusions = new ExclusionRules(root, exclusions, context);
    this.threads = threads;
  }

  /** The threads this walker scans on: a watch that goes with its scans registers on them too. */
  public CaptureThreads threads() {
    return threads;
  }

  /**
   * A walker of {@code root} for what the agent and the user look through ({@code list_files},
   * {@code grep}, the {@code @} finder): like git, it never leaves out a file git tracks, whatever
   * {@code .gitignore} or Waymark's own list says (a committed {@code dist/} or {@code build/} file
   * is found). The index is read only when a rule leaves something out.
   */
  public static ProjectWalker seeingTracked(Path root) {
    Optional<UserGitRepository> git = UserGitRepository.find(root);
    ProjectWalker walker = new ProjectWalker(root, List.of(), git.map(UserGitRepository::ignoreContext)
        .orElse(IgnoreContext.NONE));
    git.ifPresent(repository -> walker.keep(Kept.tracked(repository::trackedPaths)));
    return walker;
  }

  /**
   * What {@link #scan}, {@link #exclusionOf} and {@link #walk} walk whatever the rules say ({@link
   * #walk} asks {@link Kept#file} without a stat: {@link FileStat#MISSING}).
   */
  public void keep(Kept kept) {
    this.kept = kept;
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
    // start is walked whole even inside a left-out directory: it was asked for
    walkDirectory(start, exclusions.framesAbove(start, null), null, new Lister<BasicFileAttributes>() {
      @Override
      public BasicFileAttributes read(Path file) throws IOException {
        return attributes(file);
      }

      @Override
      public boolean isDirectory(BasicFileAttributes a) {
        return a.isDirectory();
      }
    }, visitor::entry, visitor::excluded, null);
  }

  /**
   * Walks the whole project with full stat data (change time and inode too). With
   * {@link IgnoreRules#recording()} rules, the {@code .gitignore} files read are kept in them; with
   * {@link IgnoreRules#replaying()} rules of an earlier scan, those are used instead of the files
   * on disk.
   */
  public void scan(IgnoreRules rules, StatVisitor visitor) throws IOException {
    scanFrom("", rules, visitor);
  }

  /**
   * {@link #scan} of the directory {@code dir} only (project-relative, {@code ""} for the root),
   * under the ignore rules of its ancestors; {@code dir} itself is not reported.
   */
  public void scanFrom(String dir, IgnoreRules rules, StatVisitor visitor) throws IOException {
    List<DirectoryScan.Found> found;
    try {
      DirectoryScan.Scan scan = new DirectoryScan.Scan(root, exclusions, rules, visitor, () -> kept);
      found = threads.walkers().invoke(new DirectoryScan(scan, dir, exclusions.framesAbove(dir, rules),
          exclusions.inheritedAt(dir, rules, kept)));
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
    for (DirectoryScan.Found f : found) {
      if (f.why() != null) {
        visitor.excluded(f.path(), f.stat(), f.why());
      } else if (f.stat().directory()) {
        visitor.directory(f.path(), f.stat());
      } else {
        visitor.entry(f.path(), f.stat());
      }
    }
  }

  /**
   * What a scan would make of the entry at {@code path}, whose stat is {@code stat}: null when it
   * is walked (a file to track, or a directory to go into), else why it is left out.
   */
  public Exclusion exclusionOf(String path, FileStat stat, IgnoreRules rules) {
    int slash = path.lastIndexOf('/');
    String parent = slash < 0 ? "" : path.substring(0, slash);
    String name = path.substring(slash + 1);
    Kept keeps = kept;
    // a left-out directory above, entered for what it keeps, leaves out the rest of what is in it
    Exclusion inherited = exclusions.inheritedAt(parent, rules, keeps);
    List<ExclusionRules.Frame> frames = exclusions.framesIn(parent, rules);
    return exclusions.decide(path, name, stat, frames, inherited, keeps);
  }

  /** Reads attributes without following a link: POSIX ones (with permissions) where supported. */
  public BasicFileAttributes attributes(Path file) throws IOException {
    if (posix) {
      return Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    }
    return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
  }

  private interface Lister<A> {
    A read(Path file) throws IOException;

    boolean isDirectory(A attributes);
  }

  private interface EntrySink<A> {
    boolean entry(String path, Path file, A attributes) throws IOException;
  }

  private interface ExcludedSink<A> {
    void excluded(String path, Path file, A attributes, Exclusion why);
  }

  /** Returns false when the visitor ended the walk. */
  /** {@code inherited}: the rule leaving out {@code dir}, entered for what it keeps (else null). */
  private <A> boolean walkDirectory(String dir, List<ExclusionRules.Frame> frames, Exclusion inherited, Lister<A> lister,
      EntrySink<A> entries, ExcludedSink<A> excludedEntries, IgnoreRules rules) throws IOException {
    Path dirPath = dir.isEmpty() ? root : root.resolve(dir);
    String dirPrefix = dir.isEmpty() ? "" : dir + "/";
    List<ExclusionRules.Frame> here = exclusions.framesHere(frames, dir, rules);
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
      String path = dirPrefix + name;
      A attributes;
      try {
        attributes = lister.read(child.getValue());
      } catch (NoSuchFileException gone) {
        continue;
      }
      boolean isDir = lister.isDirectory(attributes);
      if (DirectoryScan.unnameable(name, child.getValue(), dirPath)) {
        excludedEntries.excluded(path, child.getValue(), attributes, Exclusion.NOT_UTF8);
        continue;
      }
      Exclusion why = inherited != null ? inherited : exclusions.rule(path, name, isDir, here);
      // asked only of what a rule leaves out: most walks never need the index
      if (why != null && (name.equals(".git") || !(isDir ? kept.below(path) : kept.file(path, FileStat.MISSING)))) {
        excludedEntries.excluded(path, child.getValue(), attributes, why);
        continue;
      }
      if (isDir) {
        // a left-out directory entered for what it keeps: the rest of it stays left out
        if (!walkDirectory(path, here, why, lister, entries, excludedEntries, rules)) {
          return false;
        }
      } else if (!entries.entry(path, child.getValue(), attributes)) {
        return false;
      }
    }
    return true;
  }
}
