package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a --force overwrote is listed, shown and put back from the interface (#39 item 11). */
class RescuedUiTest {
  @TempDir Path temp;

  @Test
  void aVersionAForcedUndoOverwroteIsListedShownAndRestoredAsANewCheckpoint() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 140, 40, ApprovalMode.YOLO, "{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one\\n'}}]},{'text':'Wrote one.'}]}")) {
      ui.send("/checkpoint rescued");
      ui.waitFor("Nothing rescued in this tab");
      ui.send("one");
      ui.waitFor(s -> s.contains("Wrote one.") && s.contains("ready · #1"), "the turn");
      Files.writeString(ui.project.resolve("a.txt"), "mine\n");
      ui.send("/undo --force");
      ui.waitFor("ready · #0");
      assertThat(ui.project.resolve("a.txt")).doesNotExist();

      ui.send("/checkpoint rescued");
      String listed = ui.waitFor("Rescued versions, newest first");
      Matcher name = Pattern.compile("  (1-\\S+Z)  .*a\\.txt").matcher(listed);
      assertThat(name.find()).as(listed).isTrue();

      ui.send("/checkpoint rescued " + name.group(1));
      String shown = ui.waitFor("Rescued " + name.group(1));
      assertThat(shown).contains("-mine");
      ui.key(KeyType.Escape);
      ui.waitFor(s -> !s.contains("Rescued " + name.group(1) + ":"), "the panel to close");

      ui.send("/checkpoint rescued " + name.group(1) + " restore");
      ui.waitFor("ready · #2");
      assertThat(Files.readString(ui.project.resolve("a.txt"))).isEqualTo("mine\n");
      ui.send("/checkpoint rescued nosuch");
      ui.waitFor("No rescued version nosuch in this tab; there are " + name.group(1));
    }
  }
}
