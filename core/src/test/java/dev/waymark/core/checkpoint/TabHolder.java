package dev.waymark.core.checkpoint;

import dev.waymark.core.WaymarkHome;
import java.nio.file.Path;

/**
 * Another process that holds one tab of a project: it opens the tab, prints {@code holding}, and
 * waits for its standard input to close (or to be killed). Arguments: project, Waymark home, tab id.
 */
public final class TabHolder {
  private TabHolder() {}

  public static void main(String[] args) throws Exception {
    try (ShadowStore store = ShadowStore.open(Path.of(args[0]), new WaymarkHome(Path.of(args[1])), RetentionPolicy.DEFAULT)) {
      store.openTab(args[2]);
      System.out.println("holding");
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait
      }
    }
  }
}
