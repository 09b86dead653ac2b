package dev.waymark.core.model;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The context windows of well-known models, in tokens, so that a tab can say how full its
 * conversation is and compact it in time. A model not listed has no known window (settings can
 * give one); the longest matching prefix wins, so {@code gpt-4o-mini} and {@code gpt-4o} may differ.
 */
public final class ContextWindows {
  private record Known(String prefix, long tokens) {}

  private static final List<Known> KNOWN = List.of(
      new Known("gpt-4.1", 1_047_576), new Known("gpt-4o", 128_000), new Known("gpt-4-turbo", 128_000),
      new Known("gpt-4", 8_192), new Known("gpt-3.5-turbo", 16_385), new Known("gpt-5", 400_000),
      new Known("o1", 200_000), new Known("o3", 200_000), new Known("o4-mini", 200_000),
      new Known("claude-", 200_000), new Known("deepseek-chat", 128_000), new Known("deepseek-reasoner", 128_000),
      new Known("qwen2.5-coder", 32_768), new Known("qwen3", 40_960), new Known("llama3.1", 131_072),
      new Known("llama3.2", 131_072), new Known("mistral-large", 131_072), new Known("codestral", 262_144),
      new Known("gemini-2", 1_048_576), new Known("gemini-1.5", 1_048_576));

  private ContextWindows() {}

  /** The window of {@code model}: from {@code configured} (by exact name) first, else the table. */
  public static OptionalLong of(String model, Map<String, Integer> configured) {
    Integer own = configured.get(model);
    if (own != null) {
      return OptionalLong.of(own);
    }
    String name = model.toLowerCase(Locale.ROOT);
    int slash = name.lastIndexOf('/'); // OpenRouter's "anthropic/claude-…", Ollama's "library/…"
    String bare = slash < 0 ? name : name.substring(slash + 1);
    Known best = null;
    for (Known known : KNOWN) {
      if (bare.startsWith(known.prefix()) && (best == null || known.prefix().length() > best.prefix().length())) {
        best = known;
      }
    }
    return best == null ? OptionalLong.empty() : OptionalLong.of(best.tokens());
  }
}
