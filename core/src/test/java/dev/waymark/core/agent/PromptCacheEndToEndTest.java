package dev.waymark.core.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.model.AnthropicChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.TokenUsage;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.TestTabs;
import dev.waymark.core.tool.ApprovalMode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Prompt caching through a tab: the Anthropic client against a fake server. The cache pays only
 * when a request starts with the bytes an earlier one had, so a conversation that comes back the
 * same (an undo then the same prompt, a branch from the same checkpoint) must be sent the same.
 */
class PromptCacheEndToEndTest {
  @TempDir Path temp;
  private final FakeModelServer server = FakeModelServer.start();
  private TestTabs tabs;

  @AfterEach
  void close() {
    if (tabs != null) {
      tabs.close();
    }
    server.close();
  }

  private TestTabs.Watched tab() {
    tabs = new TestTabs(temp);
    URI base = server.baseUrl();
    return tabs.watchedWithStandardTools(new AnthropicChatModel(base, "sk-ant-test", "claude-test"), ApprovalMode.YOLO);
  }

  private static void turn(TestTabs.Watched tab, Command command, int checkpoint) throws InterruptedException {
    tab.session().submit(command);
    tab.events().await(Event.TurnFinished.class, e -> e.checkpoint() == checkpoint);
  }

  @Test
  void theSameConversationAfterAnUndoOrABranchIsSentByteForByteAsBefore() throws Exception {
    server.enqueue(FakeModelServer.anthropicText("one done"), FakeModelServer.anthropicText("two done"),
        FakeModelServer.anthropicText("two again"), FakeModelServer.anthropicText("two a third time"));
    TestTabs.Watched tab = tab();

    turn(tab, new Command.SendPrompt("one"), 1);
    turn(tab, new Command.SendPrompt("two"), 2);
    tab.session().submit(Command.Undo.one());
    tab.events().await(Event.CheckpointRestored.class);
    turn(tab, new Command.SendPrompt("two"), 3);
    turn(tab, new Command.Branch(1, "two"), 4);

    String second = server.requests().get(1).body();
    assertThat(second).contains("cache_control");
    assertThat(server.requests().get(2).body()).isEqualTo(second);
    assertThat(server.requests().get(3).body()).isEqualTo(second);
  }

  @Test
  void theCacheReadsOfACallReachTheTabsUsage() throws Exception {
    String recorded;
    try (var in = PromptCacheEndToEndTest.class.getResourceAsStream("/anthropic/cache-read.sse")) {
      recorded = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    server.enqueue(FakeModelServer.Reply.sse(recorded));
    TestTabs.Watched tab = tab();

    tab.session().submit(new Command.SendPrompt("how do I test?"));

    assertThat(tab.events().await(Event.UsageReported.class).usage()).isEqualTo(new TokenUsage(3244, 6, 3210, 23));
  }
}
