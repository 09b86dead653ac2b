package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.store.ProjectId;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The stores of other projects that enclose this one or lie inside it (a Waymark on a
 * repository's root, another on its {@code pkg/}): they see the same files, so their shell
 * commands take turns through one slot, and each notes its writes in the others' write logs,
 * so that neither takes the other's work for its own commands' (and undoes it).
 *
 * <p>Stores are found by the {@code project-path} marker each keeps; looked for again at most
 * every few seconds, since another Waymark may open a nested project at any time.
 */
final class NestedProjects {
  private static final long LOOK_AGAIN_MILLIS = 3_000;

  /** Another project's store, and how a path of this project is named there (null: not in it). */
  record Related(Path storeDir, Path project) {
    /** {@code path} (of the project {@code from}) as this one names it; null when it lies outside it. */
    String pathFrom(Path from, String path) {
      if (from.startsWith(project)) {
        String prefix = project.relativize(from).toString().replace('\\', '/');
        return prefix.isEmpty() ? path : prefix + "/" + path;
      }
      String inside = from.relativize(project).toString().replace('\\', '/') + "/";
      return path.startsWith(inside) ? path.substring(inside.length()) : null;
    }
  }

  private final Path project;
  private final Path projectsDir;
  private final Path ownStore;
  private List<Related> related = List.of();
  private long lookedAt;

  NestedProjects(Path project, Path ownStore) {
    this.project = project;
    this.ownStore = ownStore;
    this.projectsDir = ownStore.getParent();
  }

  /** The stores of enclosing and nested projects, as last found. */
  synchronized List<Related> related() {
    long now = System.currentTimeMillis();
    if (now - lookedAt >= LOOK_AGAIN_MILLIS) {
      related = find();
      lookedAt = now;
    }
    return related;
  }

  /**
   * The lock file every Waymark on this project or one enclosing or inside it takes turns by: the
   * outermost enclosing project's that has a store, else this one's. Decided at each command, so
   * a Waymark opened on the enclosing project later is taken into account.
   */
  Path slotFile() {
    Path outermost = ownStore;
    for (Path dir = project.getParent(); dir != null; dir = dir.getParent()) {
      Path store = projectsDir.resolve(ProjectId.of(dir));
      if (holds(store, dir)) {
        outermost = store;
      }
    }
    return outermost.resolve("shell.lock");
  }

  private List<Related> find() {
    List<Related> found = new ArrayList<>();
    try (DirectoryStream<Path> stores = Files.newDirectoryStream(projectsDir)) {
      for (Path store : stores) {
        if (store.equals(ownStore)) {
          continue;
        }
        Path other = markerOf(store);
        if (other != null && !other.equals(project) && (project.startsWith(other) || other.startsWith(project))) {
          found.add(new Related(store, other));
        }
      }
    } catch (IOException e) {
      // no other stores to tell
    }
    return List.copyOf(found);
  }

  private static boolean holds(Path store, Path project) {
    return project.equals(markerOf(store));
  }

  private static Path markerOf(Path store) {
    try {
      return Path.of(Files.readString(store.resolve("project-path"), StandardCharsets.UTF_8).trim());
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
