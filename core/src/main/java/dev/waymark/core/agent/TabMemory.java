package dev.waymark.core.agent;

import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ToolCall;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a tab remembers besides its checkpoint tree: the messages of each checkpoint's turn, the
 * draft left in the input when each was left, and the tool call each was waiting on.
 */
public record TabMemory(Map<Integer, List<ChatMessage>> messages, Map<Integer, String> drafts, Map<Integer, ToolCall> pending) {
  public static final TabMemory EMPTY = new TabMemory(Map.of(), Map.of(), Map.of());

  public TabMemory {
    Map<Integer, List<ChatMessage>> copy = new TreeMap<>();
    messages.forEach((n, list) -> copy.put(n, List.copyOf(list)));
    messages = Collections.unmodifiableMap(copy);
    drafts = Map.copyOf(drafts);
    pending = Map.copyOf(pending);
  }
}
