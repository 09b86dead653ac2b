package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.tui.terminal.Clipboard;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /copy} to the clipboard through the terminal, and {@code /export-chat} to a Markdown file, as a user runs them. */
class ChatOutUiTest {
  private static final String ANSWER = "Two ways:\\n```python\\nprint(1)\\n```\\nor\\n```\\nls -l\\n```";

  @TempDir Path temp;

  private static String osc52(String text) {
    return "\u001b]52;c;" + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)) + "\u0007";
  }

  @Test
  void copyPutsTheLastAnswerOrOneOfItsCodeBlocksOnTheClipboardAndSaysWhat() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 200, 30, ApprovalMode.ASK, "{'responses':[{'text':'" + ANSWER + "'}]}")) {
      List<String> sent = new CopyOnWriteArrayList<>();
      ui.ui.clipboard(new Clipboard(sent::add, false));
      ui.send("/copy");
      ui.waitFor("There is no answer to copy yet in this tab.");
      ui.send("how?");
      ui.waitFor("ready · #1");

      ui.send("/copy");
      ui.waitFor("Copied the answer of #1 to the clipboard: 8 lines, 49 characters. /copy 1 or /copy 2 copies one of "
          + "its 2 code blocks alone.");
      assertThat(sent).containsExactly(osc52("Two ways:\n```python\nprint(1)\n```\nor\n```\nls -l\n```"));

      ui.send("/copy 1");
      ui.waitFor("Copied code block 1 of 2 (python) of #1's answer to the clipboard: 1 line, 8 characters.");
      ui.send("/copy 2");
      ui.waitFor("Copied code block 2 of 2 of #1's answer");
      assertThat(sent).endsWith(osc52("print(1)"), osc52("ls -l"));

      ui.send("/copy 3");
      ui.waitFor("The answer of #1 has 2 code blocks: /copy 1 or /copy 2.");
      ui.send("/copy x");
      ui.waitFor("Usage: /copy [N]: the last answer, or its N-th code block (1 for the first).");
      assertThat(sent).hasSize(3);
    }
  }

  @Test
  void insideTmuxTheSequenceAlsoPassesThroughAndTheUserIsToldWhatTmuxNeeds() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 200, 30, ApprovalMode.ASK, "{'responses':[{'text':'done'}]}")) {
      List<String> sent = new CopyOnWriteArrayList<>();
      ui.ui.clipboard(new Clipboard(sent::add, true));
      ui.send("go");
      ui.waitFor("ready · #1");

      ui.send("/copy");

      ui.waitFor("In tmux the clipboard is reached with set-clipboard on (or allow-passthrough on).");
      String plain = osc52("done");
      assertThat(sent).containsExactly(plain + "\u001bPtmux;" + plain.replace("\u001b", "\u001b\u001b") + "\u001b\\");
    }
  }

  @Test
  void exportChatWritesTheLivePathAsMarkdownWithCheckpointHeadingsAndNeverReplacesAFileUnasked() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 200, 30, ApprovalMode.ASK,
        "{'responses':[{'text':'First **answer**.'},{'text':'Second answer.'},{'text':'Third answer.'}]}")) {
      ui.send("/export-chat chat.md");
      ui.waitFor("This tab has no conversation to export yet; nothing written.");
      ui.send("first question");
      ui.waitFor("ready · #1");
      ui.send("second question\nwith two lines");
      ui.waitFor("ready · #2");

      ui.send("/export-chat chat.md");

      ui.waitFor("Wrote this tab's conversation to chat.md (" + ui.project.resolve("chat.md") + "): 2 checkpoints, 14 lines");
      String md = Files.readString(ui.project.resolve("chat.md"));
      assertThat(md).startsWith("# first question\n\n## #1 · ").contains("\n\n> first question\n\nFirst **answer**.\n\n## #2 · ",
          "\n\n> second question\n> with two lines\n\nSecond answer.\n");
      assertThat(Files.getPosixFilePermissions(ui.project.resolve("chat.md"))).as("it carries the conversation, as a session file does")
          .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

      Files.writeString(ui.project.resolve("chat.md"), "mine");
      ui.send("/export-chat chat.md");
      ui.waitFor("Nothing written: chat.md (" + ui.project.resolve("chat.md") + ") exists already: /export-chat chat.md "
          + "--force replaces it.");
      assertThat(ui.project.resolve("chat.md")).hasContent("mine");

      ui.send("/undo");
      ui.waitFor("ready · #1");
      ui.send("third question");
      ui.waitFor("ready · #3");
      ui.send("/export-chat chat.md --force");
      ui.waitFor("Replaced chat.md (" + ui.project.resolve("chat.md") + ") with this tab's conversation: 2 checkpoints");
      assertThat(Files.readString(ui.project.resolve("chat.md"))).contains("## #1", "## #3", "Third answer.")
          .doesNotContain("second question", "## #2");
    }
  }

  @Test
  void aBadPathIsRefusedInOneLineAndNothingIsWritten() throws Exception {
    try (VirtualUi ui = new VirtualUi(temp, 220, 30, ApprovalMode.ASK, "{'responses':[{'text':'ok'}]}")) {
      ui.send("go");
      ui.waitFor("ready · #1");
      Files.createDirectories(ui.project.resolve("docs"));

      ui.send("/export-chat docs");
      ui.waitFor("is a directory: name a file in it, e.g. /export-chat docs/chat.md.");
      ui.send("/export-chat missing/chat.md");
      ui.waitFor("Nothing written: there is no directory " + ui.project.resolve("missing") + " to write missing/chat.md in.");
      ui.send("/export-chat my chat.md");
      ui.waitFor("Wrote this tab's conversation to my chat.md");

      try (var files = Files.list(ui.project)) {
        assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("docs", "my chat.md");
      }
    }
  }
}
