package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.PathTable;
import dev.waymark.core.checkpoint.lib.TempNames;
import dev.waymark.core.checkpoint.project.Exclusion;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import dev.waymark.core.checkpoint.project.Kept;
import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.checkpoint.project.StatVisitor;
import dev.waymark.core.checkpoint.project.UserGitRepository;
import dev.waymark.core.checkpoint.shell.Scan.Excluded;
import dev.waymark.core.checkpoint.shell.Scan.Tree;
import dev.waymark.core.checkpoint.store.DirectoryModes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The project's entries as a scan sees them: a whole walk ({@link ProjectWalker}), or the latest
 * walk brought up to date with what file notifications ({@link TreeWatch}) saw touched since, so
 * that a command costs what it changed. Knows nothing of content: {@link Scanner} classifies what
 * it finds.
 *
 * <p>Not thread-safe: used under the tracker's lock.
 */
final class TreeWalks {
  private static final Logger LOG = LoggerFactory.getLogger(TreeWalks.class);
  private static final int MAX_WATCH_RESTARTS = 3;

  private final Path root;
  private final ProjectWalker walker;
  private final Optional<UserGitRepository> userGit;
  private final Path cookies;
  /** What scans see of directories' modes, for a restore that makes one again. */
  private final DirectoryModes directoryModes;
  /** Throws when a scan ahead is to stop (the store closes); called as each directory is entered. */
  private final Runnable checkAbandoned;
  /** File notifications, when the platform has them: null until the first whole walk starts them. */
  private volatile TreeWatch watch;
  /** Watches that stopped (overflow, too many directories): after a few, this project is walked whole. */
  private int watchesStopped;

  TreeWalks(Path root, ProjectWalker walker, Optional<UserGitRepository> userGit, Path cookies,
      DirectoryModes directoryModes, Runnable checkAbandoned) {
    this.root = root;
    this.walker = walker;
    this.userGit = userGit;
    this.cookies = cookies;
    this.directoryModes = directoryModes;
    this.checkAbandoned = checkAbandoned;
    // from the start, not from the first scan: a layer's apply asks before any scan, or without one
    keep((path, stat) -> false, List::of);
  }

  /** Why a change to {@code path} (whose entry is {@code stat}) is not recorded under {@code rules}; null when it is. */
  Exclusion exclusionOf(String path, FileStat stat, IgnoreRules rules) {
    return walker.exclusionOf(path, stat, rules);
  }

  /**
   * What a walk keeps whatever the ignore rules say: what the user's git tracks (git never ignores
   * a tracked file, so neither does Waymark, whatever its built-in list says), and the files
   * {@code known} accepts. The index's paths are read only when a rule leaves something out.
   */
  void keep(BiPredicate<String, FileStat> known, Supplier<Collection<String>> paths) {
    Supplier<NavigableSet<String>> knownPaths = sortedOnce(paths);
    Kept tracked = Kept.tracked(
        () -> userGit.map(UserGitRepository::trackedPaths).orElse(Collections.emptyNavigableSet()));
    walker.keep(new Kept() {
      @Override
      public boolean file(String path, FileStat stat) {
        return tracked.file(path, stat) || known.test(path, stat);
      }

      @Override
      public boolean below(String dir) {
        return tracked.below(dir) || Kept.holdsBelow(knownPaths.get(), dir);
      }
    });
  }

  /** {@code paths}, sorted the first time they are asked for (only a walk that meets a left-out directory asks). */
  private static Supplier<NavigableSet<String>> sortedOnce(
      Supplier<Collection<String>> paths) {
    AtomicReference<NavigableSet<String>> sorted =
        new AtomicReference<>();
    return () -> {
      NavigableSet<String> have = sorted.get();
      if (have == null) {
        have = new TreeSet<>(paths.get());
        sorted.compareAndSet(null, have);
      }
      return sorted.get();
    };
  }

  /**
   * Walks the whole project. File notifications start (again, if they had stopped) with it: each
   * directory is watched before it is listed, and the tree is marked as of just before the walk.
   */
  Tree walk(IgnoreRules rules) {
    if ((watch == null || !watch.working()) && watchesStopped < MAX_WATCH_RESTARTS) {
      if (watch != null) {
        watch.close();
        watchesStopped++;
      }
      watch = watchesStopped < MAX_WATCH_RESTARTS ? TreeWatch.start(root, cookies, walker.threads().registrars()).orElse(null) : null;
    }
    OptionalLong mark = watch == null ? OptionalLong.empty()
        : watch.sync().map(OptionalLong::of).orElse(OptionalLong.empty());
    Map<String, FileStat> files = new HashMap<>();
    Map<String, Excluded> excluded = new HashMap<>();
    Map<String, FileStat> directories = new HashMap<>();
    try {
      walker.scan(rules, collector(files::put, excluded::put, directories::put));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not scan the project's files: " + e.getMessage(), e);
    }
    if (watch == null || !watch.working()) {
      mark = OptionalLong.empty();
    }
    directoryModes.save();
    return new Tree(PathTable.of(files), PathTable.of(excluded), PathTable.of(directories), rules, mark, null, false);
  }

  /** Whether a watch keeps the walks up to date. */
  boolean watching() {
    TreeWatch now = watch;
    return now != null && now.working();
  }

  /** The paths the watch saw touched since {@code mark}, once it has caught up with now; empty when it cannot say. */
  Optional<Set<String>> touchedSince(long mark) {
    TreeWatch now = watch;
    return now == null ? Optional.empty() : now.sync().flatMap(n -> now.touchedSince(mark));
  }

  /**
   * {@code base} brought up to date with what the watch saw touched since it was taken: only those
   * paths are looked at again (a new directory is walked whole). Empty when the watch cannot say
   * (none, stopped, or {@code base} is older than what it can vouch for): walk the whole tree.
   */
  Optional<Tree> update(Tree base, IgnoreRules rules) {
    if (watch == null || base.mark().isEmpty()) {
      return Optional.empty();
    }
    Optional<Long> now = watch.sync();
    Optional<Set<String>> touched = now.flatMap(n -> watch.touchedSince(base.mark().getAsLong()));
    if (touched.isEmpty()) {
      return Optional.empty();
    }
    PathTable.Editor<FileStat> files = base.files().edit();
    PathTable.Editor<Excluded> excluded = base.excluded().edit();
    PathTable.Editor<FileStat> directories = base.directories().edit();
    Set<String> changed = new HashSet<>();
    boolean ignoreFileTouched = false;
    List<String> hardLinked = new ArrayList<>();
    List<String> paths = new ArrayList<>(touched.get());
    paths.sort(null); // a directory before what is below it
    try {
      for (String path : paths) {
        if (path.isEmpty()) {
          return Optional.empty(); // the project's own directory went away or was replaced
        }
        if (path.indexOf('\uFFFD') >= 0) {
          return Optional.empty(); // perhaps a name that is not UTF-8, which only a walk sees as it is
        }
        int slash = path.lastIndexOf('/');
        String parent = slash < 0 ? "" : path.substring(0, slash);
        if (!parent.isEmpty() && !directories.containsKey(parent)) {
          Excluded left = excluded.get(parent);
          if (left != null && left.stat().directory()) {
            // in a left-out directory: only its own stat is kept, to say that something changed in it
            FileStat itself = FileStat.read(root.resolve(parent));
            if (itself == FileStat.MISSING) {
              excluded.remove(parent);
            } else {
              excluded.put(parent, excluded(parent, itself, left.why()));
            }
          }
          continue; // below a directory that is gone or left out
        }
        ignoreFileTouched |= path.substring(slash + 1).equals(".gitignore");
        FileStat stat = FileStat.read(root.resolve(path));
        FileStat wasDirectory = directories.remove(path);
        if (files.remove(path) != null) {
          changed.add(path);
        }
        Excluded wasExcluded = excluded.remove(path);
        if (wasExcluded != null && wasExcluded.stat().directory()) {
          watch.forget(path);
        }
        Exclusion why = stat == FileStat.MISSING ? null : walker.exclusionOf(path, stat, rules);
        boolean sameDirectory = wasDirectory != null && why == null && stat.directory()
            && wasDirectory.inode() == stat.inode() && watch.watches(path);
        if (wasDirectory != null && !sameDirectory) {
          changed.addAll(files.removeBelow(path));
          excluded.removeBelow(path);
          directories.removeBelow(path);
          watch.forget(path);
        }
        if (stat == FileStat.MISSING) {
          continue;
        }
        if (why != null) {
          if (stat.directory()) {
            watch.register(path); // before it is listed: an entry added after is reported
          }
          excluded.put(path, excluded(path, stat, why));
        } else if (stat.directory()) {
          directories.put(path, stat);
          directoryModes.saw(path, stat);
          if (!sameDirectory) {
            walker.scanFrom(path, rules, collector((p, s) -> {
              files.put(p, s);
              changed.add(p);
            }, excluded::put, directories::put));
          }
        } else if (stat.isFile() && !path.endsWith(TempNames.RESTORE_SUFFIX)) {
          files.put(path, stat);
          changed.add(path);
          if (stat.kind() != FileKind.SYMLINK && linkCount(root.resolve(path)) > 1) {
            hardLinked.add(path);
          }
        }
      }
      // a write through one name of a hard-linked file is reported for that name only: its other names changed too
      if (!hardLinked.isEmpty()) {
        Map<Long, List<String>> byInode = new HashMap<>();
        base.files().forEach((p, s) -> byInode.computeIfAbsent(s.inode(), k -> new ArrayList<>()).add(p));
        for (String path : hardLinked) {
          for (String sibling : byInode.getOrDefault(files.get(path).inode(), List.of())) {
            if (!changed.contains(sibling)) {
              FileStat itsStat = FileStat.read(root.resolve(sibling));
              if (itsStat.isFile()) {
                files.put(sibling, itsStat);
              } else {
                files.remove(sibling);
              }
              changed.add(sibling);
            }
          }
        }
      }
    } catch (IOException e) {
      LOG.debug("looking again at what changed failed; walking the whole project", e);
      return Optional.empty();
    }
    if (!watch.working()) {
      return Optional.empty();
    }
    directoryModes.save();
    return Optional.of(new Tree(files.build(), excluded.build(), directories.build(), rules, OptionalLong.of(now.get()),
        changed, ignoreFileTouched));
  }

  /**
   * The left-out entry at {@code path}. Only a directory's first entry is read, never what is
   * below it: a left-out directory can be huge ({@code node_modules/}). One that cannot be listed
   * counts as holding something, so that what is moved out of it is taken for the user's.
   */
  private Excluded excluded(String path, FileStat stat, Exclusion why) {
    if (!stat.directory()) {
      return new Excluded(stat, why, false);
    }
    try (var entries = Files.newDirectoryStream(root.resolve(path))) {
      return new Excluded(stat, why, !entries.iterator().hasNext());
    } catch (IOException | RuntimeException e) {
      return new Excluded(stat, why, false);
    }
  }

  /** How many names the file at {@code file} has (1 where that cannot be read). */
  private static int linkCount(Path file) {
    try {
      return (Integer) Files.getAttribute(file, "unix:nlink", LinkOption.NOFOLLOW_LINKS);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return 1;
    }
  }

  /** Hands what a scan finds to these; directories are watched as it enters them. */
  private StatVisitor collector(BiConsumer<String, FileStat> files,
      BiConsumer<String, Excluded> excluded, BiConsumer<String, FileStat> directories) {
    TreeWatch watched = watch;
    var registering = new ConcurrentHashMap<String, CompletableFuture<Void>>();
    return new StatVisitor() {
      @Override
      public void entry(String path, FileStat stat) {
        if (stat.isFile() && !path.endsWith(TempNames.RESTORE_SUFFIX)) {
          files.accept(path, stat);
        }
      }

      @Override
      public void excluded(String path, FileStat stat, Exclusion why) {
        if (watched != null && stat.directory()) {
          // its own entries only: a change in it is reported, not recorded; before it is listed, so that
          // an entry added after is reported
          watched.register(path);
        }
        excluded.accept(path, TreeWalks.this.excluded(path, stat, why));
      }

      @Override
      public void directory(String path, FileStat stat) {
        directories.accept(path, stat);
        directoryModes.saw(path, stat);
      }

      @Override
      public void found(String dir) {
        if (watched != null) {
          registering.put(dir, watched.registerSoon(dir));
        }
      }

      @Override
      public void entering(String dir) {
        checkAbandoned.run();
        if (watched != null) {
          var soon = registering.remove(dir);
          if (soon != null) {
            soon.join(); // watched before it is listed: a change is either seen by the listing or reported
          } else {
            watched.register(dir);
          }
        }
      }
    };
  }

  /** Stops the file notifications. */
  void close() {
    if (watch != null) {
      watch.close();
    }
  }
}
