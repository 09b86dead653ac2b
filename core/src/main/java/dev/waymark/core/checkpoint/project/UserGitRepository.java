package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.attributes.Attribute;
import org.eclipse.jgit.attributes.AttributesNode;
import org.eclipse.jgit.attributes.AttributesRule;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.ignore.IgnoreNode;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's own git repository around a project, read and never written: its index (to know a
 * clean file's content without reading it), its ignore sources, and its objects (to copy the
 * earlier content of a file a shell command changed).
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
  /** Where git finds the user's settings (the environment does not change while Waymark runs). */
  private final UserFiles user = UserFiles.of(System.getenv(), System.getProperty("user.home"));
  /** core.autocrlf is true or input: git may store any text file with LF for CRLF. */
  private final boolean normalisesEverything;
  private FileRepository objects;
  private Index index;

  private UserGitRepository(Path workTree, Path gitDir, Path commonDir, String projectPrefix) {
    this.workTree = workTree;
    this.gitDir = gitDir;
    this.commonDir = commonDir;
    this.projectPrefix = projectPrefix;
    this.convertsEverything = convertsLineEndings();
    this.normalisesEverything = configs().stream().map(config -> readConfig(config, "core", "autocrlf"))
        .anyMatch(autocrlf -> "true".equalsIgnoreCase(autocrlf) || "input".equalsIgnoreCase(autocrlf));
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
  public ProjectWalker.IgnoreContext ignoreContext() {
    return new ProjectWalker.IgnoreContext(projectPrefix, outerIgnoreSources());
  }

  private List<ProjectWalker.IgnoreSource> outerIgnoreSources() {
    List<ProjectWalker.IgnoreSource> sources = new ArrayList<>();
    excludesFile().ifPresent(file -> sources.add(new ProjectWalker.IgnoreSource("", ProjectWalker.parseIgnore(file),
        ProjectWalker.Exclusion.EXCLUDES_FILE)));
    sources.add(new ProjectWalker.IgnoreSource("", ProjectWalker.parseIgnore(commonDir.resolve("info/exclude")),
        ProjectWalker.Exclusion.GIT_INFO_EXCLUDE));
    if (!projectPrefix.isEmpty()) {
      String[] segments = projectPrefix.split("/");
      StringBuilder prefix = new StringBuilder();
      sources.add(new ProjectWalker.IgnoreSource("", ProjectWalker.parseIgnore(workTree.resolve(".gitignore")),
          ProjectWalker.Exclusion.IGNORED));
      for (int i = 0; i < segments.length - 1; i++) {
        prefix.append(segments[i]).append('/');
        sources.add(new ProjectWalker.IgnoreSource(prefix.toString(),
            ProjectWalker.parseIgnore(workTree.resolve(prefix.toString()).resolve(".gitignore")),
            ProjectWalker.Exclusion.IGNORED));
      }
    }
    sources.removeIf(s -> s.node() == null);
    return sources;
  }

  /** git's {@code core.excludesFile}: from the repository's config, else the user's, else the XDG default. */
  private Optional<Path> excludesFile() {
    for (Path config : configs()) {
      String value = readConfig(config, "core", "excludesFile");
      if (value != null && !value.isBlank()) {
        Path file = value.startsWith("~/") ? user.home().resolve(value.substring(2)) : Path.of(value);
        return Optional.of(file.isAbsolute() ? file : workTree.resolve(file));
      }
    }
    return Optional.of(user.xdgConfig().resolve("git/ignore"));
  }

  /** The config files git reads for this repository, the strongest first: its own, the user's, the system's. */
  private List<Path> configs() {
    List<Path> configs = new ArrayList<>(List.of(commonDir.resolve("config")));
    configs.addAll(user.globalConfigs());
    configs.addAll(user.systemConfigs());
    return configs;
  }

  /**
   * Where git finds the user's own files, from the environment as git reads it: {@code $HOME}
   * (the account's home directory only when it is unset), {@code $XDG_CONFIG_HOME},
   * {@code GIT_CONFIG_GLOBAL} (then the only global config), {@code GIT_CONFIG_NOSYSTEM}.
   */
  public record UserFiles(Path home, Path xdgConfig, List<Path> globalConfigs, List<Path> systemConfigs) {
    public static UserFiles of(Map<String, String> env, String accountHome) {
      String homeVariable = env.get("HOME");
      Path home = Path.of(homeVariable == null || homeVariable.isBlank() ? accountHome : homeVariable);
      String xdg = env.get("XDG_CONFIG_HOME");
      Path xdgConfig = xdg == null || xdg.isBlank() ? home.resolve(".config") : Path.of(xdg);
      String global = env.get("GIT_CONFIG_GLOBAL");
      List<Path> globals = global != null && !global.isBlank() ? List.of(Path.of(global))
          : List.of(home.resolve(".gitconfig"), xdgConfig.resolve("git/config")); // ~/.gitconfig wins
      String noSystem = env.get("GIT_CONFIG_NOSYSTEM");
      boolean system = noSystem == null || noSystem.isBlank() || noSystem.equals("0") || noSystem.equalsIgnoreCase("false");
      String systemFile = env.get("GIT_CONFIG_SYSTEM");
      List<Path> systems = !system ? List.of()
          : List.of(Path.of(systemFile != null && !systemFile.isBlank() ? systemFile : "/etc/gitconfig"));
      return new UserFiles(home, xdgConfig, globals, systems);
    }
  }

  /** Whether git converts line endings of every text file on checkout (autocrlf, eol=crlf). */
  private boolean convertsLineEndings() {
    for (Path config : configs()) {
      String autocrlf = readConfig(config, "core", "autocrlf");
      String eol = readConfig(config, "core", "eol");
      if ("true".equalsIgnoreCase(autocrlf) || "crlf".equalsIgnoreCase(eol)) {
        return true;
      }
    }
    return false;
  }

  private static String readConfig(Path file, String section, String name) {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    FileBasedConfig config = new FileBasedConfig(file.toFile(), FS.DETECTED);
    try {
      config.load();
    } catch (IOException | ConfigInvalidException e) {
      LOG.debug("cannot read {}: {}", file, e.toString());
      return null;
    }
    return config.getString(section, null, name);
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
    index = new Index(stamp, java.util.Collections.unmodifiableMap(tracked)); // not copied: 100,000 entries
    return index;
  }

  /**
   * Every path the index holds under the project (any stage, any flag), project-relative and
   * sorted: what git tracks, which no ignore rule may hide. Read again only when the index file
   * changed; empty without an index.
   */
  public synchronized java.util.NavigableSet<String> trackedPaths() {
    FileStat stamp;
    try {
      stamp = FileStat.read(gitDir.resolve("index"));
    } catch (IOException e) {
      stamp = FileStat.MISSING;
    }
    if (trackedPaths != null && trackedPathsStamp.equals(stamp)) {
      return trackedPaths;
    }
    java.util.TreeSet<String> paths = new java.util.TreeSet<>();
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
    trackedPaths = java.util.Collections.unmodifiableNavigableSet(paths);
    trackedPathsStamp = stamp;
    return trackedPaths;
  }

  private java.util.NavigableSet<String> trackedPaths;
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
  public synchronized void openObjects() {
    try {
      if (objects == null) {
        objects = new FileRepository(commonDir.toFile());
      }
      try (ObjectReader reader = objects.newObjectReader()) {
        reader.has(ObjectId.zeroId());
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("cannot open the objects of {}: {}", commonDir, e.toString());
    }
  }

  /**
   * Reads a blob from the user's object database, checking that it has the size the file had
   * (else the index named content that is not the file's bytes). Empty when it is not there.
   */
  public synchronized Optional<byte[]> readBlob(ObjectId blob, long expectedSize, java.util.function.BooleanSupplier crlfMayBeGone) {
    try {
      if (objects == null) {
        objects = new FileRepository(commonDir.toFile());
      }
      return readBlob(objects, blob, expectedSize, crlfMayBeGone);
    } catch (IOException | RuntimeException e) {
      LOG.info("cannot read blob {} from {}: {}", blob.name(), commonDir, e.toString());
      return Optional.empty();
    }
  }

  /**
   * {@code blob} from {@code objects} if it is there with {@code expectedSize} bytes (else the index
   * named other content). With {@code crlfMayBeGone} (git turned CRLF into LF as it stored the
   * file), a smaller blob is taken with each LF a CRLF again when that makes exactly
   * {@code expectedSize} bytes: every line of the file ended in CRLF, and those are its bytes.
   */
  public static Optional<byte[]> readBlob(org.eclipse.jgit.lib.Repository objects, ObjectId blob, long expectedSize,
      java.util.function.BooleanSupplier crlfMayBeGone) throws IOException {
    try (ObjectReader reader = objects.newObjectReader()) {
      if (!reader.has(blob, Constants.OBJ_BLOB)) {
        return Optional.empty();
      }
      ObjectLoader loader = reader.open(blob, Constants.OBJ_BLOB);
      if (loader.getSize() == expectedSize) {
        return Optional.of(loader.getCachedBytes(Integer.MAX_VALUE - 8));
      }
      if (loader.getSize() > expectedSize || expectedSize > Integer.MAX_VALUE - 8 || !crlfMayBeGone.getAsBoolean()) {
        return Optional.empty();
      }
      return withCrlf(loader.getCachedBytes(Integer.MAX_VALUE - 8), expectedSize);
    }
  }

  /** {@code lf} with CR before each LF, if that is exactly {@code size} bytes long. */
  static Optional<byte[]> withCrlf(byte[] lf, long size) {
    int lines = 0;
    for (byte b : lf) {
      if (b == '\n') {
        lines++;
      }
    }
    if (lf.length + (long) lines != size) {
      return Optional.empty();
    }
    byte[] crlf = new byte[(int) size];
    int at = 0;
    for (byte b : lf) {
      if (b == '\n') {
        crlf[at++] = '\r';
      }
      crlf[at++] = b;
    }
    return Optional.of(crlf);
  }

  /**
   * Whether git may have stored {@code path} (project-relative) with CRLF turned into LF: a
   * {@code text}, {@code eol} or {@code crlf} attribute applies to it (from {@code info/attributes}
   * or a {@code .gitattributes} on its way), or {@code core.autocrlf} is on. Read when a changed
   * file's blob is smaller than the file was; wider than git's own rules, which is safe, since
   * the blob is only taken when the sizes prove it.
   */
  public boolean normalisesLineEndings(String path) {
    if (normalisesEverything) {
      return true;
    }
    String repoPath = projectPrefix + path;
    List<String> onItsWay = new ArrayList<>();
    for (int slash = repoPath.indexOf('/'); slash >= 0; slash = repoPath.indexOf('/', slash + 1)) {
      onItsWay.add(repoPath.substring(0, slash + 1) + ".gitattributes");
    }
    try {
      return Conversions.read(workTree, commonDir, onItsWay, Conversions::touchesLineEndings).converts(repoPath);
    } catch (IOException e) {
      return true; // cannot tell: the sizes still decide
    }
  }

  @Override
  public synchronized void close() {
    if (objects != null) {
      objects.close();
      objects = null;
    }
  }

  /** The index's usable entries, and the stat of the index file they were read from. */
  public record Index(FileStat stamp, Map<String, Tracked> tracked) {
    public static final Index NONE = new Index(FileStat.MISSING, Map.of());
  }

  /**
   * The {@code .gitattributes} rules that make the checked-out file differ from the blob. Only
   * rules setting such an attribute are kept, so a repository without any costs nothing per path.
   */
  private record Conversions(List<Scoped> rules) {
    private static final List<String> CONVERTING = List.of("filter", "ident", "working-tree-encoding");

    record Scoped(String prefix, AttributesRule rule) {}

    /** {@code nested}: the tracked {@code .gitattributes} files below the root, repository-relative. */
    static Conversions read(Path workTree, Path commonDir, List<String> nested) throws IOException {
      return read(workTree, commonDir, nested, Conversions::converting);
    }

    /** The rules of those files that set an attribute {@code kept} accepts. */
    static Conversions read(Path workTree, Path commonDir, List<String> nested,
        java.util.function.Predicate<Attribute> kept) throws IOException {
      List<Scoped> rules = new ArrayList<>();
      collect("", commonDir.resolve("info/attributes"), kept, rules);
      collect("", workTree.resolve(".gitattributes"), kept, rules);
      for (String file : nested) {
        collect(file.substring(0, file.length() - ".gitattributes".length()), workTree.resolve(file), kept, rules);
      }
      return new Conversions(rules);
    }

    /** An attribute that makes the checked-out file differ from the blob. */
    static boolean converting(Attribute a) {
      return CONVERTING.contains(a.getKey()) && a.getState() != Attribute.State.UNSET
          || a.getKey().equals("eol") && "crlf".equals(a.getValue())
          || a.getKey().equals("crlf") && a.getState() == Attribute.State.SET;
    }

    /** An attribute under which git may store CRLF as LF (wider than git's rules: the sizes decide). */
    static boolean touchesLineEndings(Attribute a) {
      return (a.getKey().equals("text") || a.getKey().equals("eol") || a.getKey().equals("crlf"))
          && a.getState() != Attribute.State.UNSET;
    }

    private static void collect(String prefix, Path file, java.util.function.Predicate<Attribute> kept, List<Scoped> into)
        throws IOException {
      if (!Files.isRegularFile(file)) {
        return;
      }
      AttributesNode node = new AttributesNode();
      try (InputStream in = Files.newInputStream(file)) {
        node.parse(in);
      }
      for (AttributesRule rule : node.getRules()) {
        for (Attribute a : rule.getAttributes()) {
          if (kept.test(a)) {
            into.add(new Scoped(prefix, rule));
            break;
          }
        }
      }
    }

    boolean converts(String repoPath) {
      for (Scoped scoped : rules) {
        if (repoPath.startsWith(scoped.prefix)
            && scoped.rule.isMatch(repoPath.substring(scoped.prefix.length()), false)) {
          return true;
        }
      }
      return false;
    }
  }
}
