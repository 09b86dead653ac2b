package dev.waymark.app;

import dev.waymark.core.model.AnthropicChatModel;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.Endpoint;
import dev.waymark.core.model.HttpOptions;
import dev.waymark.core.model.OpenAiChatModel;
import dev.waymark.core.model.ScriptedChatModel;
import java.nio.file.Path;

/** Builds the model client of a resolved provider choice. */
final class ModelClients {
  private ModelClients() {}

  /** @param maxTokens 0 for the provider's default */
  static ChatModel openAi(Endpoint endpoint, String model, int maxTokens, HttpOptions options) {
    return new OpenAiChatModel(endpoint, model, maxTokens, options);
  }

  /**
   * @param maxTokens 0 for the model's default (Claude 3: 4096, later: 8192, plus the thinking budget)
   * @param thinkingBudget 0 for no extended thinking
   */
  static ChatModel anthropic(Endpoint endpoint, String model, int maxTokens, int thinkingBudget, HttpOptions options) {
    return new AnthropicChatModel(endpoint, model, maxTokens, thinkingBudget, options);
  }

  static ChatModel scripted(Path script) {
    return new ScriptedChatModel(script);
  }
}
