package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A turn that recorded nothing can be ended as if it had never begun ({@code waymark shell} that
 * changed no file): no checkpoint, live and redo as they were, and the next turn takes its number.
 */
class WithdrawnTurnTest {
  @TempDir Path temp;
  StoreFixture fx;

  @AfterEach
  void close() {
    if (fx != null) {
      fx.close();
    }
  }

  @Test
  void aTurnThatRecordedNothingLeavesNoCheckpointAndRedoAsItWas() throws Exception {
    fx = new StoreFixture(temp);
    CheckpointTree tab = fx.store.openTab("tab1");
    Turn first = tab.begin();
    fx.writeAhead(first, "a.txt", "one\n");
    first.finish(CheckpointStatus.DONE);
    tab.undo();
    assertThat(tab.redoable()).contains(1);

    Turn empty = tab.begin();
    assertThat(empty.withdrawIfEmpty()).isTrue();

    assertThat(tab.checkpoints()).extracting(Checkpoint::number).containsExactly(0, 1);
    assertThat(tab.live()).isZero();
    assertThat(tab.redoable()).as("redo still brings #1 back").contains(1);
    tab.redo();
    assertThat(fx.read("a.txt")).isEqualTo("one\n");
    Turn next = tab.begin();
    assertThat(next.number()).isEqualTo(2);
    fx.writeAhead(next, "b.txt", "two\n");
    assertThat(next.withdrawIfEmpty()).as("it holds a change").isFalse();
    assertThat(next.finish(CheckpointStatus.DONE).changes()).hasSize(1);
    assertThat(tab.live()).isEqualTo(2);
  }
}
