package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.TurnStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Counts a user reads say "1 file", "2 files": never "1 file(s)". */
class CountWordsTest {
  @Test
  void execSaysOneFileAndTwoFiles() {
    assertThat(ExecCommand.describe(checkpoint(List.of("a.txt")))).isEqualTo("checkpoint #1: 1 file changed, tag t/1");
    assertThat(ExecCommand.describe(checkpoint(List.of("a.txt", "b.txt")))).isEqualTo("checkpoint #1: 2 files changed, tag t/1");
  }

  private static CheckpointView checkpoint(List<String> paths) {
    return new CheckpointView(1, OptionalInt.of(0), TurnStatus.DONE, Instant.EPOCH, paths, Optional.empty(),
        Optional.of("t/1"), Set.of());
  }
}
