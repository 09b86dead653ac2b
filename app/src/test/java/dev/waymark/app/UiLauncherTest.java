package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.tui.terminal.KeyMap;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UiLauncherTest {
  @TempDir Path temp;

  @Test
  void aRefusedContinueOrResumeMakesNoStore() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    WaymarkHome home = new WaymarkHome(temp.resolve("home"));
    for (UiLauncher.Opening opening : List.of(new UiLauncher.Opening(true, Optional.empty()),
        new UiLauncher.Opening(false, Optional.of("some-name")))) {
      StringWriter err = new StringWriter();
      int status = UiLauncher.run(project, home, Settings.NONE, Permissions.none(),
          Providers.unconfigured(), ApprovalMode.ASK,
          KeyMap.defaults(), opening, List.of(), List.of(), new PrintWriter(err, true),
          ShellSandbox.OFF);

      assertThat(status).isEqualTo(1);
      assertThat(err.toString()).isEqualTo("waymark: This project has no saved session to continue; `waymark` starts a new one."
          + System.lineSeparator());
      assertThat(temp.resolve("home/projects")).doesNotExist();
    }
  }
}
