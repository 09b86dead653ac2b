package dev.waymark.core.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolCall;
import java.util.List;

/**
 * A {@code !command} the user typed: run as the agent's run_shell call would be (sandboxed where
 * commands are, its files recorded in the turn's checkpoint, its output streamed into the chat),
 * unasked, since the user typed it; its result becomes a message the model reads with the next
 * prompt, as Claude Code's {@code !} does. The model is not called.
 */
final class UserShell {
  private static final ObjectMapper JSON = new ObjectMapper();

  private UserShell() {}

  static CheckpointStatus run(String command, int checkpoint, Turn turn, RunningTurn state, ApprovalGate gate,
      List<ChatMessage> mine) {
    String arguments = JSON.createObjectNode().put("command", command).toString();
    ChatMessage.ToolResult result = gate.run(new ToolCall("user-shell-" + checkpoint, "run_shell", arguments), turn, state, true);
    Conversation.append(mine, new ChatMessage.User(context(command, result), List.of()));
    return state.cancellation.isCancelled() ? CheckpointStatus.CANCELLED : CheckpointStatus.DONE;
  }

  /** What the model reads of it: that the user ran it, and the result as run_shell gives it. */
  static String context(String command, ChatMessage.ToolResult result) {
    // labelled as a restore's message is: the chat, /rewind and undo know the checkpoint by what was typed
    return Conversation.LABEL + Opening.SHELL + command.replace('\n', ' ') + "]\nThe user ran this shell command "
        + "themselves (not a tool call of yours); its result, for context:\n" + result.content();
  }
}
