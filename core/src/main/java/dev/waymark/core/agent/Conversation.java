package dev.waymark.core.agent;

import dev.waymark.core.context.Mentions;
import dev.waymark.core.context.TypedPrompt;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What a tab remembers besides its tree, by checkpoint: the messages of each turn, the draft left
 * in the input when each was left, and the tool call each was waiting on. The conversation sent to
 * the model is the system prompt followed by the messages of the checkpoints on the live path.
 *
 * <p>The running turn appends to its own list while the tab's thread and savers read: each list is
 * guarded by itself.
 */
final class Conversation {
  /** Opens the message of a checkpoint a restore or revert made: {@code [waymark: LABEL]}, then what the model is told. */
  static final String LABEL = TypedPrompt.LABEL;

  private final Supplier<String> systemPromptSource;
  private volatile String systemPrompt; // made on first use: it reads the user's git status, off the opening thread
  private final Map<Integer, List<ChatMessage>> messages = new ConcurrentHashMap<>();
  private final Map<Integer, ToolCall> pendingWhenLeft = new ConcurrentHashMap<>();
  private final Map<Integer, String> drafts = new ConcurrentHashMap<>();

  Conversation(String systemPrompt, TabMemory memory) {
    this(() -> systemPrompt, memory);
  }

  Conversation(Supplier<String> systemPrompt, TabMemory memory) {
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

  /**
   * Checkpoint {@code n}'s messages for a restore of the conversation only: the conversation of
   * {@code path} (another checkpoint's live path) copied whole behind a marker that stands for all
   * before it, as a /compact's summary does, then {@code note}. So {@code n} sits under the
   * checkpoint that was live, and undoing it brings that conversation back.
   */
  void openAsConversationOf(int n, List<Integer> path, String note) {
    List<ChatMessage> all = sent(path);
    String summary = ((ChatMessage.System) all.get(0)).text().substring(systemPrompt().length()).strip();
    List<ChatMessage> mine = new ArrayList<>();
    mine.add(new ChatMessage.System(summary));
    mine.addAll(all.subList(1, all.size()));
    mine.add(new ChatMessage.User(note));
    messages.put(n, mine);
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
            } else if (m instanceof ChatMessage.ToolResult result && replaceResult(turns, result)) {
              continue; // a call approved after a restore: its result replaces the earlier "not run"
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
    all.add(new ChatMessage.System(summary == null || summary.isEmpty() ? system : system + "\n\n" + summary));
    all.addAll(turns);
    return all;
  }

  /** Puts {@code result} in place of an earlier result of the same call; false when there is none. */
  private static boolean replaceResult(List<ChatMessage> turns, ChatMessage.ToolResult result) {
    for (int i = turns.size() - 1; i >= 0; i--) {
      if (turns.get(i) instanceof ChatMessage.ToolResult earlier && earlier.toolCallId().equals(result.toolCallId())) {
        turns.set(i, result);
        return true;
      }
    }
    return false;
  }

  /** The system prompt's source says more now (a SessionStart hook's output): the next request makes it again. */
  synchronized void systemPromptChanged() {
    systemPrompt = null;
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

  /** What starts the context a UserPromptSubmit hook adds after the prompt. */
  static final String HOOK_CONTEXT = "\n\n[From the user's UserPromptSubmit hook]\n";

  /**
   * The prompt the user typed that opened checkpoint {@code n}; empty when a restore, a revert, a
   * /compact or an approved call opened it, whose labels are Waymark's words, not the user's.
   */
  String typedPromptOf(int n) {
    List<ChatMessage> turn = messages.get(n);
    if (turn == null) {
      return "";
    }
    synchronized (turn) {
      for (ChatMessage m : turn) { // a restore's label may follow the conversation it copied
        if (m instanceof ChatMessage.User user && user.text().startsWith(LABEL)) {
          String label = user.text().substring(LABEL.length(), Math.max(LABEL.length(), user.text().indexOf("]\n")));
          // a !command and a custom command are what the user typed; a restore's label is not
          return label.startsWith(Opening.SHELL) || TypedPrompt.isCommand(label) ? label : "";
        }
      }
      for (ChatMessage m : turn) {
        if (m instanceof ChatMessage.User user) {
          return typed(user.text());
        }
        if (m instanceof ChatMessage.System || m instanceof ChatMessage.ToolResult) {
          return "";
        }
      }
    }
    return "";
  }

  /** The prompt that opened checkpoint {@code n}: its first user message, or what an approval after a restore ran. */
  String promptOf(int n) {
    List<ChatMessage> turn = messages.get(n);
    if (turn == null) {
      return "";
    }
    synchronized (turn) {
      for (ChatMessage m : turn) { // a restore's or revert's label first: a copied conversation comes before it
        if (m instanceof ChatMessage.User user && user.text().startsWith(LABEL) && user.text().indexOf("]\n") > 0) {
          return user.text().substring(LABEL.length(), user.text().indexOf("]\n"));
        }
      }
      for (ChatMessage m : turn) {
        if (m instanceof ChatMessage.User user) {
          return typed(user.text());
        }
        if (m instanceof ChatMessage.System) {
          return "/compact";
        }
        if (m instanceof ChatMessage.ToolResult result) {
          return "(approved " + result.toolName() + ")";
        }
      }
    }
    return "";
  }

  /** What the user typed of a prompt: its mentions as typed, without what their UserPromptSubmit hook added. */
  private static String typed(String sent) {
    String typed = Mentions.typed(sent);
    int hook = typed.indexOf(HOOK_CONTEXT);
    return hook < 0 ? typed : typed.substring(0, hook);
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

  /** Withdraws for good the approvals left waiting in checkpoint {@code first} and later ones; whether there was one. */
  boolean withdrawWaitingFrom(int first) {
    return pendingWhenLeft.keySet().removeIf(n -> n >= first);
  }

  Optional<ToolCall> waitingIn(int n) {
    return Optional.ofNullable(pendingWhenLeft.get(n));
  }

  TabMemory memory() {
    Map<Integer, List<ChatMessage>> copy = new TreeMap<>();
    messages.forEach((n, list) -> {
      synchronized (list) {
        copy.put(n, List.copyOf(list));
      }
    });
    return new TabMemory(copy, Map.copyOf(drafts), Map.copyOf(pendingWhenLeft));
  }

  /**
   * About how many tokens {@code messages} take: four characters a token. For the context meter and
   * automatic compaction where the provider gave no counts (after a restore, or a server that
   * reports no usage).
   */
  static long estimatedTokens(List<ChatMessage> messages) {
    return messages.stream().mapToLong(Conversation::length).sum() / 4;
  }

  private static long length(ChatMessage m) {
    if (m instanceof ChatMessage.System s) {
      return s.text().length();
    } else if (m instanceof ChatMessage.User u) {
      return u.text().length();
    } else if (m instanceof ChatMessage.Assistant a) {
      return a.text().length() + a.toolCalls().stream().mapToLong(c -> c.argumentsJson().length() + c.name().length()).sum();
    } else if (m instanceof ChatMessage.ToolResult r) {
      return r.content().length();
    }
    return 0;
  }
}
