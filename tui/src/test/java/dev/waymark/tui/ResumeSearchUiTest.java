package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.testing.SavedSessions;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /resume}: the saved sessions, filtered as the user types, with a thousand of them. */
class ResumeSearchUiTest {
  private static final Instant START = Instant.parse("2026-11-01T10:00:00Z");

  @TempDir Path temp;

  @Test
  void typingFiltersAThousandSessionsByPromptOrDateAndEnterOpensTheOneLeft() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 160, 30, ApprovalMode.ASK, "{'responses':[]}")) {
      SavedSessions.saveMany(ui.workspace.files(), 1000, START);

      ui.send("/resume");
      ui.waitFor(s -> s.contains("Resume a session") && s.contains("1000 of 1000"), "the list");
      long read = ui.workspace.files().filesParsedForLists();
      ui.type("number 42");
      ui.waitFor(s -> s.contains("search: number 42▏") && s.contains("prompt number 429") && !s.contains("1000 of 1000"),
          "sessions whose prompt, date or id holds 42");
      ui.type("7");
      String one = ui.waitFor("1 of 1000");
      assertThat(one).contains("prompt number 427").doesNotContain("prompt number 42 ");
      assertThat(ui.workspace.files().filesParsedForLists()).as("typing reads no session file").isEqualTo(read);

      ui.key(KeyType.Enter);

      ui.waitFor(s -> s.contains("› prompt number 427") && !s.contains("Resume a session"), "session s0427 open");
    }
  }

  @Test
  void aDateAsShownFindsTheSessionsOfThatMinuteAndNothingFoundSaysSo() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 160, 30, ApprovalMode.ASK, "{'responses':[]}")) {
      SavedSessions.saveMany(ui.workspace.files(), 30, START);
      String minute = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").format(START.plusSeconds(60L * 12)
          .atZone(ZoneId.systemDefault()));

      ui.send("/resume");
      ui.waitFor("30 of 30");
      ui.type(minute);
      ui.waitFor(s -> s.contains("1 of 30") && s.contains("prompt number 12"), "the session of " + minute);
      ui.type(" zzz");
      ui.waitFor("Nothing matches \"" + minute + " zzz\": Backspace to take back, Esc to close.");
      ui.key(KeyType.Enter); // nothing to open: the list stays
      ui.waitFor("0 of 30");
      for (int i = 0; i < 4; i++) {
        ui.key(KeyType.Backspace);
      }
      ui.waitFor("1 of 30");
      ui.key(KeyType.Escape);
      ui.waitFor(s -> !s.contains("Resume a session"), "the list closed");
    }
  }
}
