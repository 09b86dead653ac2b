package dev.waymark.tui.chat;

import dev.waymark.core.agent.ProtocolViews;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.protocol.CheckpointView;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.tui.text.Line;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

/** Builds tab states from events the way a session would send them. */
final class ChatFixtures {
  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-23T10:00:00Z"), ZoneOffset.UTC);

  private ChatFixtures() {}

  static TabState tab() {
    return new TabState("tab1", CLOCK);
  }

  /** A whole turn: prompt, answer, finished. */
  static void turn(TabState tab, int n, int parent, String prompt, String answer) {
    tab.apply(new Event.TurnStarted(n, parent, prompt), true);
    tab.apply(new Event.AssistantDelta(n, answer), true);
    tab.apply(new Event.CheckpointCreated(new CheckpointView(n, OptionalInt.of(parent), TurnStatus.DONE, CLOCK.instant(),
        List.of(), Optional.empty(), Optional.empty(), Set.of())), true);
    tab.apply(new Event.TurnFinished(n, TurnStatus.DONE, Optional.empty()), true);
  }

  static Event.CheckpointRestored restoredTo(int from, int target, List<Integer> livePath) {
    return new Event.CheckpointRestored(ProtocolViews.restore(new RestoreResult(true, from, target, List.of(), List.of(), List.of(),
        Optional.empty(), livePath)), Optional.empty(), "");
  }

  static String text(List<Line> rows) {
    return rows.stream().map(Line::text).collect(Collectors.joining("\n"));
  }
}
