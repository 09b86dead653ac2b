package dev.waymark.core.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreOutcome;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a session keeps of the chat, checkpoint by checkpoint. */
class TranscriptTest {
  private static Event.CheckpointRestored restored(int target, List<Integer> livePath, String summary) {
    return new Event.CheckpointRestored(new RestoreOutcome(true, 4, target, List.of("a.txt"), List.of(), List.of(),
        Optional.empty(), livePath, summary), Optional.empty(), "");
  }

  @Test
  void aRevertOrOneSidedRestoreKeepsItsNoticeAsItsCheckpointsChatButAMoveKeepsNothing() {
    Transcript transcript = new Transcript(Map.of());
    Event.CheckpointRestored revert = restored(2, List.of(0, 1, 2, 3, 4, 5), "Reverted #2 as #5: 1 file written.");
    transcript.record(revert);
    transcript.record(restored(3, List.of(0, 1, 2, 3), "Restored #3: 1 file written."));

    assertThat(transcript.copy()).containsOnlyKeys(5);
    assertThat(transcript.copy().get(5)).containsExactly(revert);
  }
}
