package dev.waymark.app;

import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ChatRequest;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.model.StreamListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The demo's model: the bundled script read as a list of changes, each a proposal (a tool call)
 * and the answer after it, then what it says once all are made. Which one it answers with comes
 * from the conversation it is sent (how many changes it already holds), not from how many calls
 * this process made: after an undo or a branch it proposes the change that conversation lacks,
 * and {@code --demo --continue}, a new process, goes on where the session left off.
 */
final class DemoModel implements ChatModel {
  private final List<ScriptedChatModel.Response> proposals = new ArrayList<>();
  private final List<ScriptedChatModel.Response> answers = new ArrayList<>();
  private final ScriptedChatModel.Response done;

  DemoModel(ScriptedChatModel.Script script) {
    List<ScriptedChatModel.Response> all = script.responses();
    int i = 0;
    while (i + 1 < all.size() && !all.get(i).toolCalls().isEmpty()) {
      proposals.add(all.get(i));
      answers.add(all.get(i + 1));
      i += 2;
    }
    if (i >= all.size()) {
      throw new IllegalArgumentException("the demo script ends without what to say once every change is made");
    }
    done = all.get(i);
  }

  static DemoModel of(Path script) {
    try {
      return new DemoModel(ScriptedChatModel.parse(Files.readString(script), script.toString()));
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read the demo's script " + script + ": " + e.getMessage(), e);
    }
  }

  @Override
  public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
    List<ChatMessage> messages = request.messages();
    long made = messages.stream().filter(m -> m instanceof ChatMessage.ToolResult r && !r.isError()).count();
    ChatMessage last = messages.isEmpty() ? null : messages.get(messages.size() - 1);
    ScriptedChatModel.Response response;
    if (last instanceof ChatMessage.ToolResult result) {
      response = result.isError()
          ? ScriptedChatModel.Response.text("Nothing changed this time. Send any message to have the change proposed again.")
          : answers.get((int) Math.min(made, answers.size()) - 1);
    } else if (made < proposals.size()) {
      response = withFreshIds(proposals.get((int) made));
    } else {
      response = done;
    }
    return new ScriptedChatModel(new ScriptedChatModel.Script(List.of(response))).stream(request, listener, cancellation);
  }

  /** The proposal with tool call ids of its own: the same change proposed again on another branch is another call. */
  private static ScriptedChatModel.Response withFreshIds(ScriptedChatModel.Response proposal) {
    List<ScriptedChatModel.Call> calls = proposal.toolCalls().stream()
        .map(c -> new ScriptedChatModel.Call("demo_" + UUID.randomUUID().toString().substring(0, 8), c.name(), c.arguments()))
        .toList();
    return new ScriptedChatModel.Response(proposal.text(), calls, proposal.delayMs(), proposal.chunkDelayMs(),
        proposal.expectLastUser(), proposal.whenLastUser(), proposal.stopReason(), proposal.usage(), proposal.error());
  }
}
