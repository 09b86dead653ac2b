package dev.waymark.core.checkpoint.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.store.TabMoves.TabPosition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TabMovesTest {
  @TempDir
  Path dir;

  @Test
  void theLastRestoreOfATabIsReadBackAsItWasKept() {
    TabMoves moves = new TabMoves(dir.resolve("tabs"));
    moves.record("t1", new TabPosition(3, 3, 1, 1, List.of(2, 3)));
    moves.record("t1", new TabPosition(1, 1, 2, 2, List.of(3)));

    assertThat(new TabMoves(dir.resolve("tabs")).last("t1")).hasValue(new TabPosition(1, 1, 2, 2, List.of(3)));
    assertThat(moves.last("t2")).isEmpty();
  }

  @Test
  void aDamagedFileIsNoMoveAndOpensTheTabAsItsSessionSays() throws Exception {
    Files.createDirectories(dir.resolve("tabs"));
    Files.writeString(dir.resolve("tabs/t1.moved"), "{\"fromLive\": ");

    assertThat(new TabMoves(dir.resolve("tabs")).last("t1")).isEmpty();
  }
}
