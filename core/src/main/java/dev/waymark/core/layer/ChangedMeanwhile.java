package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which of the project's directories someone changed while a command ran ({@link Layer#changedSince}
 * of each, by its name in its own directory reached without a link, the root by its path): each
 * looked at once per apply, whatever number of the command's changes lie in it.
 */
final class ChangedMeanwhile {
  private final Layer layer;
  private final Beneath dirs;
  private final Map<String, Boolean> known = new HashMap<>();

  ChangedMeanwhile(Layer layer, Beneath dirs) {
    this.layer = layer;
    this.dirs = dirs;
  }

  /** Whether the directory at {@code dir} ("" the root) changed after the command started; a missing one did not. */
  boolean directory(String dir) throws IOException {
    Boolean changed = known.get(dir);
    if (changed == null) {
      Optional<Path> named = dir.isEmpty() ? Optional.of(layer.project()) : dirs.entry(dir);
      changed = named.isPresent() && layer.changedSince(named.get());
      known.put(dir, changed);
    }
    return changed;
  }

  /** Whether the directory {@code path} is in changed after the command started. */
  boolean parentOf(String path) throws IOException {
    int slash = path.lastIndexOf('/');
    return directory(slash < 0 ? "" : path.substring(0, slash));
  }

  /**
   * The directory at or above a deletion's path, below what the command itself deleted or emptied
   * ({@link LayerChange#deletedWith}), that changed while the command ran, the highest first: a
   * folder moved in meanwhile (a rename changes its change time, not its files'), or one whose
   * entries someone changed. What the command deleted was listed as the project has it now; all
   * below such a directory is kept, as what the command may never have seen. The directory the
   * command deleted or emptied is not looked at: any change below it changes it.
   */
  Optional<String> belowDeleted(LayerChange change, boolean isDirectory) throws IOException {
    String with = change.deletedWith();
    String path = change.path();
    if (with == null || !path.startsWith(with + "/")) {
      return Optional.empty();
    }
    for (int slash = path.indexOf('/', with.length() + 1); ; slash = path.indexOf('/', slash + 1)) {
      if (slash < 0 && !isDirectory) {
        return Optional.empty(); // a file's own change time is a clash of its own
      }
      String dir = slash < 0 ? path : path.substring(0, slash);
      if (directory(dir)) {
        return Optional.of(dir);
      }
      if (slash < 0) {
        return Optional.empty();
      }
    }
  }
}
