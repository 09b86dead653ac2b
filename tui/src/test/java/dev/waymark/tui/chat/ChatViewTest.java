package dev.waymark.tui.chat;

import static dev.waymark.tui.chat.ChatFixtures.restoredTo;
import static dev.waymark.tui.chat.ChatFixtures.tab;
import static dev.waymark.tui.chat.ChatFixtures.text;
import static dev.waymark.tui.chat.ChatFixtures.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.tui.text.Line;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ChatViewTest {
  @Test
  void aShortChatStartsAtTheTopAndFillsTheHeight() {
    TabState tab = tab();
    turn(tab, 1, 0, "hello", "hi there");
    List<Line> rows = ChatView.render(tab, new ChatView.Scroll(), 40, 10);
    assertThat(rows).hasSize(10);
    assertThat(rows.get(0).text()).contains("#1");
    assertThat(rows.get(1).text()).isEqualTo("› hello");
    assertThat(text(rows)).contains("hi there");
  }

  @Test
  void aLongChatShowsItsEndWhileFollowing() {
    TabState tab = tab();
    for (int n = 1; n <= 50; n++) {
      turn(tab, n, n - 1, "prompt " + n, "answer " + n);
    }
    List<Line> rows = ChatView.render(tab, new ChatView.Scroll(), 40, 6);
    assertThat(text(rows)).contains("answer 50").doesNotContain("answer 49");
  }

  @Test
  void viewingACheckpointDimsWhatCameAfterAndPutsTheSeparatorAtTheBottom() {
    TabState tab = tab();
    for (int n = 1; n <= 5; n++) {
      turn(tab, n, n - 1, "prompt " + n, "answer " + n);
    }
    tab.apply(new Event.ViewMoved(2, false), true);
    ChatView.Scroll scroll = new ChatView.Scroll();
    ChatView.showViewed(tab, scroll, 60);
    List<Line> rows = ChatView.render(tab, scroll, 60, 8);

    assertThat(rows.get(7).text()).isEqualTo("↶ Viewing checkpoint #2, send a message to rewind here.");
    assertThat(text(rows)).contains("answer 2").doesNotContain("answer 3");

    ChatView.scrollDown(tab, scroll, 60, 4);
    List<Line> below = ChatView.render(tab, scroll, 60, 8);
    Line prompt3 = below.stream().filter(l -> l.text().equals("› prompt 3")).findFirst().orElseThrow();
    assertThat(prompt3.spans()).allMatch(s -> s.style().dim());
  }

  @Test
  void undoneCheckpointsStayVisibleDimmedUnderASeparator() {
    TabState tab = tab();
    turn(tab, 1, 0, "one", "a");
    turn(tab, 2, 1, "two", "b");
    turn(tab, 3, 2, "three", "c");
    tab.apply(restoredTo(3, 1, List.of(0, 1)), true);
    List<Line> rows = ChatView.render(tab, new ChatView.Scroll(), 60, 30);

    String all = text(rows);
    assertThat(all).containsOnlyOnce(ChatView.REWOUND);
    assertThat(all.indexOf(ChatView.REWOUND)).isBetween(all.indexOf("› one"), all.indexOf("› two"));
    Line two = rows.stream().filter(l -> l.text().equals("› two")).findFirst().orElseThrow();
    assertThat(two.spans()).allMatch(s -> s.style().dim());
    Line one = rows.stream().filter(l -> l.text().equals("› one")).findFirst().orElseThrow();
    assertThat(one.spans()).noneMatch(s -> s.style().dim());
  }

  @Test
  void aSessionBroughtBackSaysWhereTheLivePathGoesOnAfterAnAbandonedBranch() {
    TabState tab = tab();
    Event.TurnStarted one = new Event.TurnStarted(1, 0, "one");
    Event.TurnStarted two = new Event.TurnStarted(2, 1, "two");
    Event.TurnStarted three = new Event.TurnStarted(3, 1, "three");
    Event.TurnFinished done1 = new Event.TurnFinished(1, TurnStatus.DONE, Optional.empty());
    Event.TurnFinished done2 = new Event.TurnFinished(2, TurnStatus.DONE, Optional.empty());
    Event.TurnFinished done3 = new Event.TurnFinished(3, TurnStatus.DONE, Optional.empty());
    Instant t = Instant.parse("2026-11-23T10:00:00Z");
    tab.apply(new Event.TabRestored("t", List.of(
        new Event.TabRestored.RestoredCheckpoint(1, 0, TurnStatus.DONE, t, false, List.of(one, done1)),
        new Event.TabRestored.RestoredCheckpoint(2, 1, TurnStatus.DONE, t, false, List.of(two, done2)),
        new Event.TabRestored.RestoredCheckpoint(3, 1, TurnStatus.DONE, t, false, List.of(three, done3))),
        3, List.of(0, 1, 3), Optional.empty()), true);
    String all = text(ChatView.render(tab, new ChatView.Scroll(), 60, 30));

    assertThat(all.indexOf(ChatView.REWOUND)).isBetween(all.indexOf("› one"), all.indexOf("› two"));
    String again = String.format(ChatView.LIVE_AGAIN, 3, 1);
    assertThat(all).containsOnlyOnce(again);
    assertThat(all.indexOf(again)).isBetween(all.indexOf("› two"), all.indexOf("› three"));
  }

  @Test
  void scrollingUpStopsAtTheFirstRowAndScrollingBackDownFollowsAgain() {
    TabState tab = tab();
    for (int n = 1; n <= 20; n++) {
      turn(tab, n, n - 1, "prompt " + n, "answer " + n);
    }
    ChatView.Scroll scroll = new ChatView.Scroll();
    ChatView.scrollUp(tab, scroll, 40, 5, 10_000);
    assertThat(ChatView.render(tab, scroll, 40, 5).get(1).text()).isEqualTo("› prompt 1");
    ChatView.scrollDown(tab, scroll, 40, 10_000);
    assertThat(scroll.following()).isTrue();
  }

  @Test
  void newOutputDoesNotMoveAChatScrolledUp() {
    TabState tab = tab();
    for (int n = 1; n <= 20; n++) {
      turn(tab, n, n - 1, "prompt " + n, "answer " + n);
    }
    ChatView.Scroll scroll = new ChatView.Scroll();
    ChatView.scrollUp(tab, scroll, 40, 5, 30);
    String before = text(ChatView.render(tab, scroll, 40, 5));
    turn(tab, 21, 20, "prompt 21", "answer 21");
    assertThat(text(ChatView.render(tab, scroll, 40, 5))).isEqualTo(before);
  }

  @Test
  void tinyAndEmptyViewportsNeverThrow() {
    TabState tab = tab();
    assertThat(ChatView.render(tab, new ChatView.Scroll(), 40, 3)).hasSize(3);
    turn(tab, 1, 0, "x".repeat(500), "y".repeat(500));
    assertThat(ChatView.render(tab, new ChatView.Scroll(), 1, 2)).hasSize(2);
    assertThat(ChatView.render(tab, new ChatView.Scroll(), 0, 0)).isEmpty();
    ChatView.Scroll scroll = new ChatView.Scroll();
    ChatView.scrollUp(tab, scroll, 1, 1, 5);
    assertThat(ChatView.render(tab, scroll, 1, 1)).hasSize(1);
  }
}
