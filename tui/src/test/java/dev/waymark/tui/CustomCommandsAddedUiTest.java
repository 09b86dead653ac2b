package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.tool.ApprovalMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A command file written while Waymark runs is in the / menu and Tab completes it, as the README says (#39 item 12). */
class CustomCommandsAddedUiTest {
  @TempDir Path temp;

  @Test
  void aCommandFileWrittenWhileRunningIsInTheMenuAndTabCompletesIt() throws Exception {
    Path commands = Files.createDirectories(temp.resolve("config/waymark/commands"));
    CustomCommands custom = CustomCommands.of(Optional.empty(), commands.getParent());
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO, "{'responses':[]}", null, null, custom)) {
      ui.type("/");
      ui.waitFor("/checkpoint");
      ui.key(KeyType.Escape);
      ui.ctrl('u');
      Files.writeString(commands.resolve("ship-it.md"), "# Ship the release\nShip $ARGUMENTS.\n");
      ui.type("/shi");
      assertThat(ui.waitFor("Ship the release")).contains("/ship-it [arguments]");
      ui.key(KeyType.Tab);
      ui.waitFor(s -> ui.input().equals("› /ship-it"), "Tab to complete the new command");
    }
  }

  @Test
  void aCustomCommandIsShownAsTypedInTheChatTitleAndRewindWhileTheModelGetsItsPrompt() throws Exception {
    Path commands = Files.createDirectories(temp.resolve("config/waymark/commands"));
    Files.writeString(commands.resolve("review.md"), "Review $ARGUMENTS for bugs and list each with its line.\n");
    CustomCommands custom = CustomCommands.of(Optional.empty(), commands.getParent());
    try (VirtualUi ui = new VirtualUi(temp, 100, 30, ApprovalMode.YOLO,
        "{'responses':[{'whenLastUser':'for bugs and list','text':'No bugs found.'},{'text':'not expanded'}]}", null, null, custom)) {
      ui.type("/review src/Foo.java");
      ui.key(KeyType.Escape); // the menu
      ui.key(KeyType.Enter);
      String screen = ui.waitFor("No bugs found.");
      assertThat(screen).contains("› /review src/Foo.java", " 1 /review src/Foo.java").doesNotContain("for bugs and list");
      ui.type("/rewind");
      ui.key(KeyType.Escape);
      ui.key(KeyType.Enter);
      assertThat(ui.waitFor("Rewind:")).contains("#1  › /review src/Foo.java");
    }
  }
}
