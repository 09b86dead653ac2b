package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import dev.waymark.tui.WaymarkUi;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.KeyReader;
import dev.waymark.tui.terminal.UiTerminal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires store, model, tools and settings into the full-screen interface and runs it. */
final class UiLauncher {
  private static final Logger LOG = LoggerFactory.getLogger(UiLauncher.class);

  private UiLauncher() {}

  static void run(Path project, WaymarkHome home, Providers.Choice choice, ApprovalMode approval, KeyMap keys)
      throws Exception {
    try (ShadowStore store = ShadowStore.open(project, home, RetentionPolicy.DEFAULT);
        UiTerminal terminal = UiTerminal.open()) {
      WaymarkUi.TabOpener opener = () -> new TabSession(store.newTab(), store.projectDirectory(), choice.create(),
          Toolset.of(Tools.standard().all()), new SessionSettings(choice.model(), approval, true, null));
      WaymarkUi ui = new WaymarkUi(terminal.screen(), terminal::frame, opener,
          new WaymarkUi.Options(choice.model().equals(choice.provider()) ? choice.model() : choice.provider() + " · " + choice.model(), approval.name().toLowerCase(Locale.ROOT)
              .replace('_', '-'), keys, Clock.systemDefaultZone()));
      terminal.onResize(ui::wake);
      KeyReader.start(terminal, ui::post);
      ui.startupNotices(store.recovered());
      ui.run();
      LOG.info("the interface closed normally");
    }
  }

  static Path project(Path directory) {
    Path dir = directory.toAbsolutePath().normalize();
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("Not a directory: " + dir);
    }
    return dir;
  }
}
