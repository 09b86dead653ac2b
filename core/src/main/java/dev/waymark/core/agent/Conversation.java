package dev.waymark.core.agent;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a tab remembers besides its tree, by checkpoint: the messages of each turn, the draft left
 * in the input when each was left, and the tool call each was waiting on. The conversation sent to
 * the model is the system prompt followed by the messages of the checkpoints on the live path.
 *
 * <p>The running turn appends to its own list while the tab's thread and savers read: each list is
 * guarded by itself.
 */
final class Conversation {
  private final java.util.function.Supplier<String> systemPromptSource;
  private volatile String systemPrompt; // made on first use: it reads the user's git status, off the opening thread
  private final Map<Integer, List<ChatMessage>> messages = new ConcurrentHashMap<>();
  private final Map<Integer, ToolCall> pendingWhenLeft = new ConcurrentHashMap<>();
  private final Map<Integer, String> drafts = new ConcurrentHashMap<>();

  Conversation(String systemPrompt, TabSession.Memory memory) {
    this(() -> systemPrompt, memory);
  }

  Conversation(java.util.function.Supplier<String> systemPrompt, TabSession.Memory memory) {
    this.systemPromptSource = systemPrompt;
    memory.messages().forEach((n, list) -> messages.put(n, new ArrayList<>(list)));
    drafts.putAll(memory.drafts());
    pendingWhenLeft.putAll(memory.pending());
  }

  /** The message list of checkpoint {@code n}'s turn, empty or with its prompt. */
  List<ChatMessage> open(int n, Optional<String> prompt) {
    List<ChatMessage> mine = new ArrayList<>();
    prompt.ifPresent(text -> mine.add(new ChatMessage.User(text)));
    messages.put(n, mine);
    return mine;
  }

  static void append(List<ChatMessage> turn, ChatMessage message) {
    synchronized (turn) {
      turn.add(message);
    }
  }

  /** What the next model call would be sent: the system prompt and the messages of {@code livePath}. */
  List<ChatMessage> sent(List<Integer> livePath) {
    List<ChatMessage> turns = new ArrayList<>();
    String summary = null;
    for (int n : livePath) {
      List<ChatMessage> turn = messages.get(n);
      if (turn != null) {
        synchronized (turn) {
          for (ChatMessage m : turn) {
            if (m instanceof ChatMessage.System compacted) { // a /compact: it stands for all before it
              turns.clear();
              summary = compacted.text();
            } else {
              turns.add(m);
            }
          }
        }
      }
    }
    List<ChatMessage> all = new ArrayList<>();
    // the summary joins the system prompt: some chat templates refuse a system message further down
    String system = systemPrompt();
    all.add(new ChatMessage.System(summary == null ? system : system + "\n\n" + summary));
    all.addAll(turns);
    return all;
  }

  private String systemPrompt() {
    String made = systemPrompt;
    if (made == null) {
      synchronized (this) {
        made = systemPrompt;
        if (made == null) {
          made = systemPromptSource.get();
          systemPrompt = made;
        }
      }
    }
    return made;
  }

  /** The prompt that opened checkpoint {@code n}: its first user message. */
  String promptOf(int n) {
    List<ChatMessage> turn = messages.get(n);
    if (turn == null) {
      return "";
    }
    synchronized (turn) {
      for (ChatMessage m : turn) {
        if (m instanceof ChatMessage.User user) {
          return dev.waymark.core.context.Mentions.typed(user.text());
        }
        if (m instanceof ChatMessage.System) {
          return "/compact";
        }
      }
    }
    return "";
  }

  void keepDraft(int n, String text) {
    drafts.put(n, text);
  }

  String draft(int n) {
    return drafts.getOrDefault(n, "");
  }

  void leftWaiting(int n, ToolCall call) {
    pendingWhenLeft.put(n, call);
  }

  Optional<ToolCall> waitingIn(int n) {
    return Optional.ofNullable(pendingWhenLeft.get(n));
  }

  TabSession.Memory memory() {
    Map<Integer, List<ChatMessage>> copy = new TreeMap<>();
    messages.forEach((n, list) -> {
      synchronized (list) {
        copy.put(n, List.copyOf(list));
      }
    });
    return new TabSession.Memory(copy, Map.copyOf(drafts), Map.copyOf(pendingWhenLeft));
  }
}
