package dev.waymark.tui.chat;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.protocol.CheckpointSummary;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.tui.text.Line;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CheckpointListingTest {
  private static CheckpointSummary cp(int n, int parent, String prompt, boolean onPath, String... saves) {
    return new CheckpointSummary(n, n == 0 ? OptionalInt.empty() : OptionalInt.of(parent), TurnStatus.DONE,
        Instant.parse("2026-01-02T03:04:00Z"), prompt, n == 0 ? 0 : 1, 2, 1, onPath, Optional.empty(), Set.of(saves));
  }

  private static List<String> rows(List<CheckpointSummary> all, int live) {
    return CheckpointListing.render(all, live).stream().map(Line::text).map(String::stripTrailing).toList();
  }

  @Test
  void aBranchIsIndentedRightUnderTheCheckpointItLeftAndLeftCheckpointsSayWhetherRedoReachesThem() {
    // #1 → #2 (left by branching from #1) ; #1 → #3 → #4 (undone: #3 is live)
    List<String> rows = rows(List.of(cp(0, -1, "", true), cp(1, 0, "one", true), cp(2, 1, "two", false, "first-try"),
        cp(3, 1, "three", true), cp(4, 3, "four", false)), 3);

    assertThat(rows.get(0)).startsWith("Checkpoints (live #3)");
    assertThat(rows.get(1)).contains("#0", "(start)");
    assertThat(rows.get(2)).contains("#1", "one").doesNotContain("undone", "abandoned");
    assertThat(rows.get(3)).contains("└ #2", "two", "branch from #1", "abandoned", "\"first-try\"");
    assertThat(rows.get(4)).contains("#3", "three", "live").doesNotContain("└");
    assertThat(rows.get(5)).contains("#4", "four", "undone (redo)");
    assertThat(rows.get(4).indexOf('#')).as("the way to live stays in its column").isEqualTo(rows.get(2).indexOf('#'));
    assertThat(rows.get(3).indexOf('#')).isGreaterThan(rows.get(2).indexOf('#'));
  }

  @Test
  void aBranchsOwnChildrenStayInItsColumnAndComeBeforeTheLineItLeft() {
    // #1 → #2 → #3 (abandoned), #1 → #4 → #5 (live)
    List<String> rows = rows(List.of(cp(0, -1, "", true), cp(1, 0, "one", true), cp(2, 1, "two", false),
        cp(3, 2, "three", false), cp(4, 1, "four", true), cp(5, 4, "five", true)), 5);

    assertThat(rows.get(3)).contains("└ #2", "branch from #1");
    assertThat(rows.get(4)).contains("#3", "abandoned");
    assertThat(rows.get(4).indexOf('#')).isEqualTo(rows.get(3).indexOf('#'));
    assertThat(rows.get(5)).contains("#4").doesNotContain("└");
    assertThat(rows.get(6)).contains("#5", "live");
  }
}
