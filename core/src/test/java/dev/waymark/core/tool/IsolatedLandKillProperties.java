package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.layer.ApplyKills;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;

/**
 * A Waymark killed at any step of an isolated tab's land: when the tab is opened again, the land
 * ends as if it had finished (the project holds the view's files, the view is empty), and undo
 * takes it back out of the project.
 */
class IsolatedLandKillProperties {
  @Property(tries = 8, shrinking = ShrinkingMode.OFF)
  void aKillDuringALandEndsAsIfItHadFinished(@ForAll @IntRange(min = 1, max = 12) int killedAfter) throws Exception {
    killedDuringALand(killedAfter, false);
  }

  /** The same with the land's choice to stay isolated: the tab is opened again isolated, its view empty. */
  @Property(tries = 4, shrinking = ShrinkingMode.OFF)
  void aKillDuringALandThatKeepsTheTabIsolatedEndsAsIfItHadFinished(@ForAll @IntRange(min = 1, max = 12) int killedAfter)
      throws Exception {
    killedDuringALand(killedAfter, true);
  }

  private void killedDuringALand(int killedAfter, boolean keepIsolated) throws Exception {
    Path temp = Files.createTempDirectory("land-kill");
    try {
      ToolSettings settings = ToolSettings.DEFAULTS.withSandbox(
          Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))));
      Path project = Files.createDirectories(temp.resolve("project"));
      Files.writeString(project.resolve("gone.txt"), "gone\n");
      Files.writeString(project.resolve("kept.txt"), "kept\n");
      ToolFixture f = new ToolFixture(temp, settings, List.of(), true);
      Map<String, String> before = f.tree();
      for (int i = 1; i <= 8; i++) {
        f.call("write_file", "path", "dir" + (i % 3) + "/f" + i + ".txt", "content", "file " + i + "\n");
      }
      assertThat(f.shell("rm gone.txt").isError()).isFalse();
      f.finish();
      Map<String, String> landed = new TreeMap<>(before);
      landed.remove("gone.txt");
      for (int i = 1; i <= 8; i++) {
        landed.put("dir" + (i % 3) + "/f" + i + ".txt", "f:" + HexFormat.of().formatHex(("file " + i + "\n").getBytes()));
      }
      TreeSnapshot saved = f.tab.snapshot();
      boolean wasKilled = false;
      try (AutoCloseable kill = ApplyKills.after(killedAfter)) {
        f.tab.land(keepIsolated);
      } catch (CheckpointException killed) {
        assertThat(killed).hasRootCauseInstanceOf(ApplyKills.Killed.class);
        wasKilled = true;
      }
      assertThat(wasKilled).as("the land makes 9 changes (a deletion, 8 files)").isEqualTo(killedAfter <= 9);
      f.store.close(); // the process is gone: a land it left is journalled under a process that is no more
      Path layersRoot = f.store.shadowDirectory().resolveSibling("layers");
      try (Stream<Path> journals = Files.walk(layersRoot)) {
        for (Path journal : journals.filter(p -> p.getFileName().toString().equals("layer.json")).toList()) {
          Files.writeString(journal, Files.readString(journal).replaceAll("\"pid\":\\d+", "\"pid\":999999999"));
        }
      }

      try (ShadowStore reopened = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
        CheckpointTree back = reopened.restoreTab(saved).tree();
        assertThat(f.tree()).as("as if the land had finished").isEqualTo(landed);
        if (keepIsolated) {
          assertThat(back.viewDirectory()).as("still isolated, as after such a land").isPresent();
          assertThat(back.viewHoldsChanges()).as("its view empty over the landed project").isFalse();
          return;
        }
        assertThat(back.viewDirectory()).as("a normal tab, as after a land").isEmpty();
        assertThat(back.undo().applied()).isTrue();
        assertThat(f.tree()).as("undo takes the land back out of the project").isEqualTo(before);
      }
    } finally {
      try (Stream<Path> all = Files.walk(temp)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          p.toFile().setWritable(true);
          p.toFile().setExecutable(true);
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
