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
}
