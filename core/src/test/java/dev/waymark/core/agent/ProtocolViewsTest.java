package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.RestoreMode;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.RestoreScope;
import dev.waymark.core.protocol.TurnStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;

class ProtocolViewsTest {
  private static final ObjectId COMMIT = ObjectId.fromString("0123456789abcdef0123456789abcdef01234567");
  private static final ObjectId BLOB = ObjectId.fromString("89abcdef0123456789abcdef0123456789abcdef");

  @Test
  void aCheckpointBecomesPlainValuesWithItsCommitInHexAndNoParentForTheStart() {
    Checkpoint start = new Checkpoint(0, -1, CheckpointStatus.DONE, Instant.EPOCH, List.of(), Optional.empty(),
        Optional.empty(), Set.of());
    Checkpoint edited = new Checkpoint(2, 0, CheckpointStatus.CANCELLED, Instant.EPOCH,
        List.of(new FileChange("a.txt", FileVersion.ABSENT, new FileVersion(FileKind.REGULAR, BLOB))),
        Optional.of(COMMIT), Optional.of("refs/waymark/t/2"), Set.of("good"));

    assertThat(ProtocolViews.checkpoint(start).parent()).isEmpty();
    CheckpointView view = ProtocolViews.checkpoint(edited);
    assertThat(view).isEqualTo(new CheckpointView(2, OptionalInt.of(0), TurnStatus.CANCELLED, Instant.EPOCH,
        List.of("a.txt"), Optional.of("0123456789abcdef0123456789abcdef01234567"), Optional.of("refs/waymark/t/2"),
        Set.of("good")));
    assertThat(view.changedFiles()).isTrue();
  }

  @Test
  void everyStatusAndScopeHasItsCounterpart() {
    for (CheckpointStatus status : CheckpointStatus.values()) {
      assertThat(ProtocolViews.status(status).name()).isEqualTo(status.name());
    }
    for (RestoreScope scope : RestoreScope.values()) {
      assertThat(ProtocolViews.mode(scope)).isEqualTo(RestoreMode.valueOf(scope.name()));
    }
  }
}
