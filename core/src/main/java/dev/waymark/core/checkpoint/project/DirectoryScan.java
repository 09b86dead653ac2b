package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.project.ExclusionRules.Frame;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RecursiveTask;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Scans one directory of {@link ProjectWalker#scan}: a stat per entry, each subdirectory forked as
 * a scan of its own, so that a walk runs on every core, as git's preload-index does. The entries
 * found come back in the order they were listed, for the walker to hand to its visitor on the
 * caller's thread.
 */
final class DirectoryScan extends RecursiveTask<List<DirectoryScan.Found>> {
  private static final Logger LOG = LoggerFactory.getLogger(DirectoryScan.class);

  /** An entry found: {@code why} it is left out, or null when it is walked. */
  record Found(String path, FileStat stat, Exclusion why) {}

  /** What every directory of one scan shares: the project, its rules and what is kept whatever they say. */
  record Scan(Path root, ExclusionRules exclusions, IgnoreRules rules, StatVisitor visitor, Supplier<Kept> kept) {}

  private final Scan scan;
  private final String dir;
  private final List<Frame> frames;
  /** The rule leaving out this directory (entered for what it keeps), else null. */
  private final Exclusion inherited;

  DirectoryScan(Scan scan, String dir, List<Frame> frames, Exclusion inherited) {
    this.scan = scan;
    this.dir = dir;
    this.frames = frames;
    this.inherited = inherited;
  }

  @Override
  protected List<Found> compute() {
    scan.visitor().entering(dir);
    Path dirPath = dir.isEmpty() ? scan.root() : scan.root().resolve(dir);
    String dirPrefix = dir.isEmpty() ? "" : dir + "/";
    List<Frame> here = scan.exclusions().framesHere(frames, dir, scan.rules());
    Kept keeps = scan.kept().get();
    List<Found> found = new ArrayList<>();
    List<DirectoryScan> subdirectories = new ArrayList<>();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(dirPath)) {
      for (Path child : stream) {
        String name = child.getFileName().toString();
        String path = dirPrefix + name;
        FileStat stat = FileStat.read(child);
        if (stat == FileStat.MISSING) {
          continue; // gone since the listing
        }
        boolean isDir = stat.directory();
        Exclusion why = unnameable(name, child, dirPath) ? Exclusion.NOT_UTF8
            : scan.exclusions().decide(path, name, stat, here, inherited, keeps);
        if (why != null) {
          found.add(new Found(path, stat, why));
        } else if (isDir) {
          found.add(new Found(path, stat, null));
          scan.visitor().found(path);
          Exclusion inside = inherited != null ? inherited : scan.exclusions().rule(path, name, true, here);
          DirectoryScan task = new DirectoryScan(scan, path, here, inside);
          task.fork();
          subdirectories.add(task);
        } else {
          found.add(new Found(path, stat, null));
        }
      }
    } catch (NoSuchFileException gone) {
      // removed while the scan ran: as if it had not been there
    } catch (IOException e) {
      LOG.debug("cannot list {}: {}", dirPath, e.toString());
    }
    for (DirectoryScan task : subdirectories) {
      found.addAll(task.join());
    }
    return found;
  }

  /** Whether the listed entry {@code child} cannot be reached again by its {@code name} as Java read it. */
  static boolean unnameable(String name, Path child, Path dir) {
    return name.indexOf('\uFFFD') >= 0 && !dir.resolve(name).equals(child);
  }
}
