package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.wording.Wording;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RestoreResultTest {
  @Test
  void aCreatedFileAForcedRevertTakesAwayIsDeletedByForceAndCountedOnce() {
    RestoreResult reverted = new RestoreResult(true, 2, 1, List.of("a.txt"), List.of(), List.of("a.txt"),
        Optional.of("rescued/2-x"), List.of(0, 1, 2, 3), List.of("a.txt"), "Reverted #1 as #3");
    assertThat(Wording.restored(reverted)).isEqualTo("Reverted #1 as #3: 1 deleted by force (kept under rescued/2-x).");
  }

  @Test
  void writtenDeletedAndOverwrittenFilesAreEachSaidOnce() {
    RestoreResult undone = new RestoreResult(true, 2, 1, List.of("a.txt", "b.txt", "c.txt"), List.of(), List.of("a.txt"),
        Optional.of("rescued/2-x"), List.of(0, 1), List.of("c.txt"), "Restored #1");
    assertThat(Wording.restored(undone))
        .isEqualTo("Restored #1: 1 file written, 1 file deleted, 1 overwritten by force (kept under rescued/2-x).");
  }
}
