package dev.waymark.core.checkpoint.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each tab's last restore left it, one small file per tab in the store's {@code tabs}
 * directory, written atomically: the session is saved later, and a process killed in between
 * must not bring the tab back believing the files are where they were.
 */
public final class TabMoves {
  private static final Logger LOG = LoggerFactory.getLogger(TabMoves.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path tabsDir;

  public TabMoves(Path tabsDir) {
    this.tabsDir = tabsDir;
  }

  /**
   * Where a tab's last restore took it: live and files before and after, and redo (next first).
   * Kept in {@code tabs/<tab>.moved} so that a process killed after a restore but before its
   * session was saved does not leave the tab believing the files are where they were.
   */
  public record TabPosition(int fromLive, int fromFiles, int live, int files, List<Integer> redo) {
    public TabPosition {
      redo = List.copyOf(redo);
    }
  }

  public void record(String tabId, TabPosition position) {
    Path file = tabsDir.resolve(tabId + ".moved");
    Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
    try {
      WaymarkHome.createPrivateDirectories(file.getParent());
      Files.write(temp, JSON.writeValueAsBytes(position));
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException | RuntimeException e) {
      // The files moved; only a kill before the next session save would now leave the tab behind.
      LOG.warn("could not record where the restore of tab {} left it", tabId, e);
    }
  }

  /** Where the last restore of {@code tabId} left it, if a restore was recorded since the tab was last brought back. */
  public Optional<TabPosition> last(String tabId) {
    Path file = tabsDir.resolve(tabId + ".moved");
    try {
      return Files.isRegularFile(file) ? Optional.of(JSON.readValue(file.toFile(), TabPosition.class)) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not read {}; the tab is brought back as its session says", file, e);
      return Optional.empty();
    }
  }
}
