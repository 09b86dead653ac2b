package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.tui.command.ModelLister;
import dev.waymark.tui.command.RunInfo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** /model without a name lists what the server offers, or says why it cannot (#39 item 9). */
class ServerModelsUiTest {
  @TempDir Path temp;

  private VirtualUi start(ModelLister lister) throws Exception {
    RunInfo run = new RunInfo("local", "http://127.0.0.1:1/v1", List.of("from-settings"), false, "", Map.of(), () -> "", lister);
    return new VirtualUi(temp, 100, 30, ApprovalMode.ASK, "{'responses':[]}", null, null, CustomCommands.NONE, Hooks.NONE, run);
  }

  @Test
  void modelWithoutANameOffersTheServersModelsBesideTheSettingsOnesAndEnterPicksOne() throws Exception {
    try (VirtualUi ui = start(() -> List.of("qwen3-coder", "llama3.3"))) {
      ui.send("/model");
      String picker = ui.waitFor("Model for the next turn");
      assertThat(picker).contains("test-model", "from-settings", "qwen3-coder", "llama3.3");
      ui.key(KeyType.ArrowDown);
      ui.key(KeyType.ArrowDown);
      ui.key(KeyType.Enter);
      assertThat(ui.waitFor("from the next turn")).contains("Model qwen3-coder from the next turn");
    }
  }

  @Test
  void aServerThatCannotListSaysSoWithTheSettingsModels() throws Exception {
    try (VirtualUi ui = start(() -> {
      throw new IOException("http://127.0.0.1:1/v1/models answered HTTP 404 to a request for its models");
    })) {
      ui.send("/model");
      String said = ui.waitFor("could not list its models");
      assertThat(said).contains("local could not list its models: http://127.0.0.1:1/v1/models answered HTTP 404",
          "settings list from-settings", "/model NAME sets any name");
    }
  }
}
