package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A long proposed edit can be read whole, page by page, before it is approved. */
class PendingDiffScrollUiTest {
  @TempDir Path temp;

  @Test
  void pageDownAndUpScrollThePendingDiffByPagesAtEightyByTwentyFour() throws Exception {
    String content = IntStream.rangeClosed(1, 200).mapToObj(i -> "row " + i).collect(Collectors.joining("\\n"));
    try (VirtualUi ui = new VirtualUi(temp, 80, 24, ApprovalMode.ASK, "{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'long.txt','content':'" + content + "'}}]},"
        + "{'text':'Written.'}]}")) {
      ui.send("write it");
      String first = ui.waitFor(s -> s.contains("Allow write_file"), "the approval");
      assertThat(first).contains("+row 1 ").containsPattern("of 20\\d · PgDn").doesNotContain("+row 40 ");

      ui.key(KeyType.PageDown);
      String second = ui.waitFor(s -> !s.contains("+row 1 "), "the next page");
      assertThat(second).containsPattern("\\+row \\d+ ").contains("Allow write_file").contains("PgUp");

      for (int i = 0; i < 40; i++) {
        ui.key(KeyType.PageDown);
      }
      String end = ui.waitFor(s -> s.contains("+row 200"), "the end of the diff");
      assertThat(end).contains("Allow once");

      for (int i = 0; i < 40; i++) {
        ui.key(KeyType.PageUp);
      }
      ui.waitFor(s -> s.contains("+row 1 "), "the start again");
    }
  }
}
