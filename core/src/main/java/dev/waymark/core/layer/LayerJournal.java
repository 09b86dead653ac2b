package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The layers of one project, in one directory (on the project's file system where it can be, so
 * that an apply renames rather than copies): each a {@link Layer} with its journal, from before its
 * command starts until it is applied whole.
 */
public final class LayerJournal {
  private static final Logger LOG = LoggerFactory.getLogger(LayerJournal.class);

  private final Path root;

  public LayerJournal(Path root) {
    this.root = root;
  }

  public Path root() {
    return root;
  }

  /** A new, journalled layer of {@code project} for a command of {@code owner} marked {@code mark}. */
  public Layer begin(Path project, String owner, String mark) throws IOException {
    return Layer.create(root, project, owner, mark);
  }

  /**
   * The layers whose process is gone before it applied them (killed during the command or the
   * apply), whose owner {@code owned} accepts: the caller applies what each still holds, records it,
   * and deletes it.
   */
  public List<Layer> leftBehind(Predicate<String> owned) {
    List<Layer> found = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(root)) {
      for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
        try {
          Layer layer = Layer.read(dir);
          if (owned.test(layer.owner()) && !layer.ownerAlive()) {
            found.add(layer);
          }
        } catch (NoSuchFileException noJournal) {
          deleteQuietly(dir); // made and killed before its journal: nothing ran in it
        } catch (IOException | RuntimeException unreadable) {
          LOG.warn("layer {} cannot be read; it is left where it is", dir, unreadable);
        }
      }
    } catch (NoSuchFileException none) {
      return List.of();
    } catch (IOException e) {
      LOG.warn("cannot list the layers in {}", root, e);
    }
    return found;
  }

  private static void deleteQuietly(Path dir) {
    try {
      Layer.deleteTree(dir);
    } catch (IOException | RuntimeException e) {
      LOG.debug("could not remove {}", dir, e);
    }
  }
}
