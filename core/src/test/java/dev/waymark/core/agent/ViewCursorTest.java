package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.CheckpointTree.ViewPosition;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.protocol.Command;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Browsing over a picture of the tree, in memory. */
class ViewCursorTest {
  /**
   * #0 ─ #1 ─ #2 ─ #3 (live)
   *        └ #4 ─ #5
   *        └ #6
   */
  private static final TabSnapshot TAB = tab(3, List.of(0, 1, 2, 3), Map.of(0, 1, 1, 2, 2, 3, 4, 5), -1, 0, 1, 2, 1, 4, 1);

  private static TabSnapshot tab(int live, List<Integer> livePath, Map<Integer, Integer> forward, int... parents) {
    List<Checkpoint> checkpoints = new ArrayList<>();
    for (int n = 0; n < parents.length; n++) {
      checkpoints.add(new Checkpoint(n, parents[n], CheckpointStatus.DONE, Instant.EPOCH, List.of(), Optional.empty(),
          Optional.empty(), Set.of()));
    }
    return new TabSnapshot(new TreeSnapshot("t", checkpoints, live, live, List.of(), Map.of()), livePath,
        new ViewPosition(live, true), forward);
  }

  private static ViewPosition move(TabSnapshot tab, ViewPosition from, Command.View view) {
    return ViewCursor.move(tab.withView(from), view);
  }

  @Test
  void backAndForwardWalkTheLivePathAndStopAtItsEnds() {
    ViewPosition live = new ViewPosition(3, true);
    assertThat(move(TAB, live, Command.View.back())).isEqualTo(new ViewPosition(2, false));
    assertThat(move(TAB, new ViewPosition(0, false), Command.View.back())).isEqualTo(new ViewPosition(0, false));
    assertThat(move(TAB, new ViewPosition(1, false), Command.View.forward())).isEqualTo(new ViewPosition(2, false));
    assertThat(move(TAB, new ViewPosition(2, false), Command.View.forward())).isEqualTo(live);
    assertThat(move(TAB, live, Command.View.forward())).isEqualTo(live);
  }

  @Test
  void forwardOffTheLivePathGoesTheWayLastTakenFromThere() {
    assertThat(move(TAB, new ViewPosition(4, false), Command.View.forward())).isEqualTo(new ViewPosition(5, false));
    assertThat(move(TAB, new ViewPosition(5, false), Command.View.forward())).as("nothing below: live").isEqualTo(
        new ViewPosition(3, true));
    assertThat(move(TAB, new ViewPosition(5, false), Command.View.back())).isEqualTo(new ViewPosition(4, false));
    assertThat(move(TAB, new ViewPosition(6, false), Command.View.back())).isEqualTo(new ViewPosition(1, false));
  }

  @Test
  void atMovesAnywhereAndLiveIsLiveButAnUnknownCheckpointIsRefused() {
    assertThat(move(TAB, new ViewPosition(3, true), Command.View.at(6))).isEqualTo(new ViewPosition(6, false));
    assertThat(move(TAB, new ViewPosition(6, false), Command.View.at(3))).isEqualTo(new ViewPosition(3, true));
    assertThat(move(TAB, new ViewPosition(6, false), Command.View.live())).isEqualTo(new ViewPosition(3, true));
    assertThatThrownBy(() -> move(TAB, new ViewPosition(3, true), Command.View.at(7)))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("#7").hasMessageContaining("#0 to #6");
  }

  @Test
  void aCheckpointNotBroughtBackCannotBeViewed() {
    TabSnapshot gap = new TabSnapshot(new TreeSnapshot("t", List.of(
        new Checkpoint(0, -1, CheckpointStatus.DONE, Instant.EPOCH, List.of(), Optional.empty(), Optional.empty(), Set.of()),
        new Checkpoint(2, 0, CheckpointStatus.DONE, Instant.EPOCH, List.of(), Optional.empty(), Optional.empty(), Set.of())),
        2, 2, List.of(), Map.of()), List.of(0, 2), new ViewPosition(2, true), Map.of(0, 2));
    assertThatThrownBy(() -> ViewCursor.move(gap, Command.View.at(1))).isInstanceOf(CheckpointException.class)
        .hasMessageContaining("not brought back");
  }

  @Test
  void forwardAfterBranchesIsTheWayLiveLastWentAsTheEngineKeepsIt(@TempDir Path temp)
      throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    try (var store = ShadowStore.open(project,
        new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT)) {
      CheckpointTree tree = store.openTab("t");
      tree.begin().finish(CheckpointStatus.DONE); // #1
      tree.begin().finish(CheckpointStatus.DONE); // #2
      tree.goTo(1);
      tree.begin().finish(CheckpointStatus.DONE); // #3, a branch from #1
      tree.goTo(2);
      tree.goTo(0);
      TabSnapshot tab = TabSnapshot.of(tree, new ViewPosition(0, true));
      assertThat(move(tab, new ViewPosition(1, false), Command.View.forward()))
          .as("#2 was live last: forward from #1 goes there, as redo would").isEqualTo(new ViewPosition(2, false));
      assertThat(tree.redoable()).contains(1);

      tree.goTo(3);
      tree.goTo(0);
      assertThat(move(TabSnapshot.of(tree, new ViewPosition(0, true)), new ViewPosition(1, false), Command.View.forward()))
          .isEqualTo(new ViewPosition(3, false));
    }
  }
}
