package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A message sent from an earlier checkpoint whose files the user changed since. */
class RefusedBranchUiTest {
  @TempDir Path temp;

  private static final String SCRIPT = "{'responses':["
      + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one\\n'}}]},"
      + "{'whenLastUser':'one','text':'Wrote one.'},"
      + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'two\\n'}}]},"
      + "{'whenLastUser':'two','text':'Wrote two.'},"
      + "{'whenLastUser':'another way','text':'Branched.'}]}";

  private VirtualUi twoTurnsThenViewTheFirstWithTheFileEditedByHand() throws Exception {
    VirtualUi ui = new VirtualUi(temp, 120, 40, ApprovalMode.YOLO, SCRIPT);
    ui.send("one");
    ui.waitFor(s -> s.contains("Wrote one.") && s.contains("ready · #1"), "the first turn");
    ui.send("two");
    ui.waitFor(s -> s.contains("Wrote two.") && s.contains("ready · #2"), "the second turn");
    Files.writeString(ui.project.resolve("a.txt"), "mine\n");
    ui.ctrl('b');
    ui.waitFor("Viewing checkpoint #1");
    ui.send("another way");
    return ui;
  }

  @Test
  void aRefusedBranchSaysSoOnceKeepsTheMessageInTheInputAndAsksWhetherToForceIt() throws Exception {
    try (VirtualUi ui = twoTurnsThenViewTheFirstWithTheFileEditedByHand()) {
      String asked = ui.waitFor("Branch from #1 anyway");
      assertThat(asked).contains("overwriting a.txt", "rescued tag", "[y/N]");

      ui.readIt();
      ui.type("n");
      String declined = ui.waitFor(s -> !s.contains("Branch from #1 anyway"), "the question to go");
      assertThat(declined.split("a\\.txt, changed since", -1)).as("the refusal is said once").hasSize(2);
      assertThat(declined).contains("Not sent: branching from #1").doesNotContain("repeat with --force", "Nothing restored");
      assertThat(ui.input()).isEqualTo("› another way");
      assertThat(declined).doesNotContain("Branched.");
      assertThat(Files.readString(ui.project.resolve("a.txt"))).isEqualTo("mine\n");
    }
  }

  @Test
  void aYTypedAsTheQuestionComesUpIsTypingNotAnAnswer() throws Exception {
    try (VirtualUi ui = twoTurnsThenViewTheFirstWithTheFileEditedByHand()) {
      ui.waitFor("Branch from #1 anyway");
      ui.type("y"); // the user was typing as the question came up: nothing is overwritten by it
      String still = ui.waitFor("read it, then answer y or n");
      assertThat(still).contains("Branch from #1 anyway").doesNotContain("Branched.");
      assertThat(ui.input()).isEqualTo("› another wayy");
      assertThat(Files.readString(ui.project.resolve("a.txt"))).isEqualTo("mine\n");
      ui.readIt();
      ui.type("n");
      ui.waitFor(s -> !s.contains("Branch from #1 anyway"), "the question to go");
      assertThat(Files.readString(ui.project.resolve("a.txt"))).isEqualTo("mine\n");
    }
  }

  @Test
  void answeringYesBranchesOverwritingTheClashingFileAndKeepsWhatItHeldUnderARescuedTag() throws Exception {
    try (VirtualUi ui = twoTurnsThenViewTheFirstWithTheFileEditedByHand()) {
      ui.waitFor("Branch from #1 anyway");
      ui.readIt();
      ui.type("y");
      String branched = ui.waitFor(s -> s.contains("Branched.") && s.contains("ready · #3"), "the forced branch");
      assertThat(branched).contains("Restored #1: 1 overwritten by force (kept under").doesNotContain("no file changed");
      assertThat(Files.readString(ui.project.resolve("a.txt"))).isEqualTo("one\n");
      assertThat(ui.input()).doesNotContain("another way");
    }
  }
}
