package dev.waymark.tui.chat;

import static dev.waymark.tui.chat.ChatFixtures.restoredTo;
import static dev.waymark.tui.chat.ChatFixtures.tab;
import static dev.waymark.tui.chat.ChatFixtures.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.agent.ProtocolViews;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.tui.screen.Footer;
import dev.waymark.tui.text.Style;
import dev.waymark.tui.text.Tone;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TabStateTest {
  @Test
  void aTurnAddsAPromptAndAStreamedAnswerAndMarksItsCheckpoint() {
    TabState tab = tab();
    tab.apply(new Event.TurnStarted(1, 0, "fix the bug"), true);
    tab.apply(new Event.AssistantDelta(1, "Looking"), true);
    tab.apply(new Event.AssistantDelta(1, " at it."), true);

    assertThat(tab.running()).isTrue();
    assertThat(tab.blocks()).hasSize(2);
    assertThat(ChatFixtures.text(tab.blocks().get(1).lines(40))).isEqualTo("Looking at it.");
    assertThat(tab.checkpoints().get(1).status()).isEqualTo(TurnStatus.RUNNING);
    assertThat(tab.title()).isEqualTo("fix the bug");

    tab.apply(new Event.TurnFinished(1, TurnStatus.DONE, Optional.empty()), false);
    assertThat(tab.running()).isFalse();
    assertThat(tab.unseenFinish()).isTrue();
  }

  @Test
  void aToolCallNeedingApprovalIsPendingUntilItFinishes() {
    TabState tab = tab();
    tab.apply(new Event.TurnStarted(1, 0, "go"), true);
    ToolCallView call = new ToolCallView("c1", "write_file", "{}");
    tab.apply(new Event.ToolCallProposed(1, call, "write a.txt", "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n", true), true);
    assertThat(tab.pendingApproval()).map(TabState.PendingApproval::summary).contains("write a.txt");
    assertThat(ChatFixtures.text(tab.blocks().get(1).lines(60))).contains("write_file write a.txt", "+hi", "waiting for your approval");

    tab.apply(new Event.ToolCallFinished(1, call, "Created a.txt (3 bytes).", false), true);
    assertThat(tab.pendingApproval()).isEmpty();
    assertThat(ChatFixtures.text(tab.blocks().get(1).lines(60))).contains("✓", "Created a.txt").doesNotContain("waiting");
  }

  @Test
  void aRetryWaitShowsInTheFooterUntilTheAnswerComes() {
    TabState tab = tab();
    tab.apply(new Event.TurnStarted(1, 0, "go"), true);
    tab.apply(new Event.Waiting(1, "rate limited, retrying in 12 s (2/3)"), true);

    String footer = Footer.render(tab, "gpt", "ask", 120, Instant.now(), "⠋").text();
    assertThat(footer).contains("rate limited, retrying in 12 s (2/3)");

    tab.apply(new Event.AssistantDelta(1, "Hi"), true);
    assertThat(Footer.render(tab, "gpt", "ask", 120, Instant.now(), "⠋").text())
        .doesNotContain("retrying").contains("working");
  }

  @Test
  void reasoningIsFoldedToOneDimmedLineUntilShown() {
    TabState tab = tab();
    tab.apply(new Event.TurnStarted(1, 0, "go"), true);
    tab.apply(new Event.ReasoningDelta(1, "First I look\n"), true);
    tab.apply(new Event.ReasoningDelta(1, "at a.txt."), true);
    tab.apply(new Event.AssistantDelta(1, "Done."), true);

    assertThat(tab.blocks()).hasSize(3);
    assertThat(ChatFixtures.text(tab.blocks().get(1).lines(60))).isEqualTo("▸ thought · 2 lines · /reasoning shows it");
    assertThat(tab.blocks().get(1).lines(60).get(0).spans())
        .allSatisfy(span -> assertThat(span.style()).isEqualTo(Style.of(Tone.MUTED)));
    assertThat(ChatFixtures.text(tab.blocks().get(2).lines(60))).isEqualTo("Done.");

    assertThat(tab.toggleReasoning()).isTrue();
    assertThat(ChatFixtures.text(tab.blocks().get(1).lines(60))).contains("First I look", "at a.txt.");
  }

  @Test
  void steeringWaitsInTheQueueUntilFoldedIntoTheTurn() {
    TabState tab = tab();
    tab.apply(new Event.TurnStarted(1, 0, "go"), true);
    tab.apply(new Event.SteeringQueued(1, "also tests"), true);
    assertThat(tab.steeringQueue()).containsExactly("also tests");
    tab.apply(new Event.SteeringFolded(1, "also tests"), true);
    assertThat(tab.steeringQueue()).isEmpty();
    assertThat(ChatFixtures.text(tab.blocks().get(1).lines(60))).contains("also tests", "steering");
  }

  @Test
  void undoTakesCheckpointsOffTheLivePathAndBringsBackTheDraft() {
    TabState tab = tab();
    turn(tab, 1, 0, "one", "a");
    turn(tab, 2, 1, "two", "b");
    tab.apply(new Event.CheckpointRestored(ProtocolViews.restore(new RestoreResult(true, 2, 1, List.of("a.txt"), List.of(), List.of(),
        Optional.empty(), List.of(0, 1))), Optional.empty(), "two"), true);

    assertThat(tab.live()).isEqualTo(1);
    assertThat(tab.checkpoints().get(2).onLivePath()).isFalse();
    assertThat(tab.rewound(tab.blocks().get(2))).isTrue();
    assertThat(tab.rewound(tab.blocks().get(0))).isFalse();
    assertThat(tab.takeDraftToRestore()).contains("two");
    assertThat(tab.takeDraftToRestore()).isEmpty();
  }

  @Test
  void aRevertOrOneSidedRestoreMakesANewLiveCheckpointOnTheRailAndTheNoticeBelongsToIt() {
    TabState tab = tab();
    turn(tab, 1, 0, "one", "a");
    turn(tab, 2, 1, "two", "b");
    tab.apply(new Event.CheckpointRestored(ProtocolViews.restore(new RestoreResult(true, 2, 1, List.of("a.txt"), List.of(),
        List.of(), Optional.empty(), List.of(0, 1, 2, 3), "Reverted #1 as #3")), Optional.empty(), ""), true);

    assertThat(tab.live()).as("the footer's live checkpoint is the new one, as the tree says").isEqualTo(3);
    assertThat(tab.checkpoints()).hasSize(4);
    assertThat(tab.checkpoints().get(3).parent()).isEqualTo(2);
    assertThat(tab.checkpoints().get(3).hasEdits()).isTrue();
    assertThat(tab.checkpoints()).extracting(CheckpointMark::onLivePath).containsExactly(true, true, true, true);
    Block notice = tab.blocks().get(tab.blocks().size() - 1);
    assertThat(notice.checkpoint()).isEqualTo(3);
    assertThat(ChatFixtures.text(notice.lines(80))).contains("Reverted #1 as #3");
  }

  @Test
  void aSaveNamesItsOwnRefAndADeletedSaveIsSaid() {
    TabState tab = tab();
    turn(tab, 1, 0, "one", "a");
    CheckpointView one = new CheckpointView(1,
        OptionalInt.of(0), TurnStatus.DONE, Instant.EPOCH, List.of("a.txt"), Optional.of("c0ffee"),
        Optional.of("refs/tags/waymark/t/1"), Set.of("four"));
    tab.apply(new Event.CheckpointSaved(one, "four", "refs/tags/waymark/t/saved/four", OptionalInt.empty()), true);
    assertThat(ChatFixtures.text(tab.blocks().get(tab.blocks().size() - 1).lines(100)))
        .contains("refs/tags/waymark/t/saved/four").doesNotContain("refs/tags/waymark/t/1");
    tab.apply(new Event.SaveDeleted(1, "four", "refs/tags/waymark/t/saved/four"), true);
    assertThat(ChatFixtures.text(tab.blocks().get(tab.blocks().size() - 1).lines(100)))
        .contains("Deleted the save \"four\"", "#1 stays");
  }

  @Test
  void aBranchStartsUnderTheViewedCheckpoint() {
    TabState tab = tab();
    turn(tab, 1, 0, "one", "a");
    turn(tab, 2, 1, "two", "b");
    tab.apply(new Event.ViewMoved(1, false), true);
    assertThat(tab.viewed()).contains(1);
    tab.apply(restoredTo(2, 1, List.of(0, 1)), true);
    tab.apply(new Event.TurnStarted(3, 1, "three"), true);

    assertThat(tab.viewed()).isEmpty();
    assertThat(tab.live()).isEqualTo(3);
    assertThat(tab.checkpoints()).extracting(CheckpointMark::onLivePath).containsExactly(true, true, false, true);
  }

  @Test
  void aRestoreThatProposesACallAgainMakesItPending() {
    TabState tab = tab();
    tab.apply(new Event.TurnStarted(1, 0, "go"), true);
    ToolCallView call = new ToolCallView("c1", "run_shell", "{}");
    tab.apply(new Event.ToolCallProposed(1, call, "$ make", "", true), true);
    tab.apply(new Event.TurnFinished(1, TurnStatus.CANCELLED, Optional.empty()), true);
    assertThat(tab.pendingApproval()).isEmpty();

    tab.apply(new Event.CheckpointRestored(ProtocolViews.restore(new RestoreResult(true, 0, 1, List.of(), List.of(), List.of(),
        Optional.empty(), List.of(0, 1))), Optional.of(call), ""), true);
    assertThat(tab.pendingApproval()).hasValueSatisfying(p -> {
      assertThat(p.summary()).isEqualTo("$ make");
      assertThat(p.proposedAgain()).isTrue();
    });
  }

  @Test
  void aRestoreStoppedByConflictsSaysWhichFiles() {
    TabState tab = tab();
    tab.apply(new Event.CheckpointRestored(ProtocolViews.restore(new RestoreResult(false, 2, 1, List.of(), List.of(), List.of("src/A.java"),
        Optional.empty(), List.of(0, 1, 2))), Optional.empty(), ""), true);
    assertThat(ChatFixtures.text(tab.blocks().get(0).lines(200))).contains("Nothing restored", "src/A.java");
  }

  @Test
  void aCompactedCheckpointLoadsAsItsCommandAndSummary() {
    TabState tab = tab();
    tab.apply(restoredTab(1, TurnStatus.DONE, List.of(new Event.TurnStarted(1, 0, "/compact"),
        new Event.AssistantDelta(1, "We wrote a.txt."), new Event.TurnFinished(1, TurnStatus.DONE, Optional.empty()))), true);

    assertThat(ChatFixtures.text(tab.blocks().get(tab.blocks().size() - 2).lines(60))).contains("/compact");
    assertThat(ChatFixtures.text(tab.blocks().get(tab.blocks().size() - 1).lines(60))).isEqualTo("We wrote a.txt.");
    assertThat(tab.running()).isFalse();
    assertThat(tab.live()).isEqualTo(1);
  }

  private static Event.TabRestored restoredTab(int n, TurnStatus status, List<Event> history) {
    return new Event.TabRestored("t", List.of(new Event.TabRestored.RestoredCheckpoint(n, 0, status,
        ChatFixtures.CLOCK.instant(), false, history)), n, List.of(0, n), Optional.empty());
  }

  /** What a live tab showed of a turn: its tool call's diff and result, the partial answer, the error, "Interrupted". */
  private static final ToolCallView WRITE = new ToolCallView("c1", "write_file", "{\"path\":\"a.txt\",\"content\":\"hi\\n\"}");

  @Test
  void aRunningCommandsLinesShowAsATerminalLeavesThem() {
    assertThat(Blocks.ToolUse.asShown("10%\r50%\r100%")).isEqualTo("100%");
    assertThat(Blocks.ToolUse.asShown("done\r")).isEqualTo("done");
    assertThat(Blocks.ToolUse.asShown("\u001b[32mok\u001b[0m\u0007")).isEqualTo("ok");
  }

  private static List<Event> liveTurn() {
    return List.of(new Event.TurnStarted(1, 0, "write a.txt"),
        new Event.ToolCallProposed(1, WRITE, "write a.txt", "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+hi\n", false),
        new Event.ToolCallFinished(1, WRITE, "Created a.txt (3 bytes).", false),
        new Event.AssistantDelta(1, "Now checking the te"),
        new Event.Error(ErrorKind.MODEL_FAILED, "The model stopped answering (connection reset)."),
        new Event.TurnFinished(1, TurnStatus.CANCELLED, Optional.empty()));
  }

  private static String transcript(TabState tab) {
    StringBuilder all = new StringBuilder();
    for (Block block : tab.blocks()) {
      all.append(ChatFixtures.text(block.lines(80))).append('\n');
    }
    return all.toString();
  }

  @Test
  void aTabLoadedFromItsSessionShowsWhatTheLiveTabShowed() {
    TabState live = tab();
    liveTurn().forEach(e -> live.apply(e, true));
    String shownLive = transcript(live);
    assertThat(shownLive).contains("+hi", "Created a.txt", "Now checking the te", "connection reset", "Interrupted");

    TabState loaded = tab();
    loaded.apply(restoredTab(1, TurnStatus.CANCELLED, liveTurn()), true);
    assertThat(transcript(loaded)).isEqualTo(shownLive);
    assertThat(loaded.running()).isFalse();
    assertThat(loaded.title()).isEqualTo("write a.txt");
    assertThat(loaded.checkpoints().get(1).status()).isEqualTo(TurnStatus.CANCELLED);
  }
}
