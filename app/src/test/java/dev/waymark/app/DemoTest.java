package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ChatRequest;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ToolCall;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoTest {
  @TempDir Path temp;
  /** The demo copies made, deleted after each test: Demo makes them in the system's temporary directory. */
  private final List<Path> copies = new ArrayList<>();

  @AfterEach
  void deleteCopies() throws Exception {
    for (Path dir : copies) {
      try (var walk = Files.walk(dir)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Test
  void whereTheLastDemoIsIsReadableByItsOwnerOnly() throws Exception {
    WaymarkHome home = new WaymarkHome(temp.resolve("home"));
    Demo.Prepared prepared = Demo.prepare(home);
    copies.add(prepared.project().getParent());

    Path last = home.root().resolve("demo-last.txt");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(last))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home.root()))).isEqualTo("rwx------");
    assertThat(Demo.last(home).project()).isEqualTo(prepared.project());
  }

  private static ChatResponse ask(ChatModel model, List<ChatMessage> conversation) {
    return model.stream(new ChatRequest("demo", conversation, List.of()), text -> { }, new Cancellation());
  }

  private static List<ChatMessage> afterChanges(int changes) {
    List<ChatMessage> conversation = new ArrayList<>(List.of(new ChatMessage.System("system")));
    for (int i = 1; i <= changes; i++) {
      conversation.add(new ChatMessage.User("go " + i));
      ToolCall call = new ToolCall("c" + i, "write_file", "{}");
      conversation.add(new ChatMessage.Assistant("", List.of(call), List.of()));
      conversation.add(new ChatMessage.ToolResult("c" + i, "write_file", "ok", false));
      conversation.add(new ChatMessage.Assistant("done " + i, List.of(), List.of()));
    }
    conversation.add(new ChatMessage.User("next"));
    return conversation;
  }

  private static String writes(ChatResponse response) {
    return response.message().toolCalls().stream().map(c -> c.argumentsJson()).findFirst().orElse("");
  }

  @Test
  void theDemosModelProposesTheChangeTheConversationLacksWhateverThisProcessAskedBefore() throws Exception {
    Path script = Demo.prepare().script();
    copies.add(script.getParent());
    ChatModel fresh = DemoModel.of(script);
    assertThat(writes(ask(fresh, afterChanges(0)))).contains("greeter.py");

    // a new process (--demo --continue) on a session with two changes made: the third, not the first again
    assertThat(writes(ask(DemoModel.of(script), afterChanges(2)))).contains("README.md");
    // a branch from #1 in the process that made all three: the second again, not "no more changes"
    ChatModel used = DemoModel.of(script);
    for (int i = 0; i < 3; i++) {
      ask(used, afterChanges(i));
    }
    assertThat(writes(ask(used, afterChanges(1)))).contains("test_greeter.py");
    assertThat(ask(used, afterChanges(3)).message().text()).contains("no more changes");

    List<ChatMessage> justMade = new ArrayList<>(afterChanges(1).subList(0, 4));
    assertThat(ask(used, justMade).message().text()).startsWith("Done: `greet` takes `shout`");
    ChatResponse again = ask(used, afterChanges(1));
    ChatResponse twice = ask(used, afterChanges(1));
    assertThat(again.message().toolCalls().get(0).id()).as("each proposal is a call of its own")
        .isNotEqualTo(twice.message().toolCalls().get(0).id());
  }
}
