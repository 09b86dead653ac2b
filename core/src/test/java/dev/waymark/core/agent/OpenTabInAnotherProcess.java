package dev.waymark.core.agent;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link TabSessionTest}: opens a tab of a project's store as another
 * Waymark process would. Arguments: project, Waymark home, tab id. Prints {@code opened <tab>},
 * or the message it was refused with.
 */
public final class OpenTabInAnotherProcess {
  private OpenTabInAnotherProcess() {}

  public static void main(String[] args) {
    try (ShadowStore store = ShadowStore.open(Path.of(args[0]), new WaymarkHome(Path.of(args[1])), RetentionPolicy.DEFAULT)) {
      store.openTab(args[2]);
      System.out.println("opened " + args[2]);
    } catch (CheckpointException e) {
      System.out.println(e.getMessage());
    }
  }
}
