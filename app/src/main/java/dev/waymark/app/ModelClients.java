package dev.waymark.app;

import dev.waymark.core.model.AnthropicChatModel;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.HttpOptions;
import dev.waymark.core.model.OpenAiChatModel;
import dev.waymark.core.model.ScriptedChatModel;
import java.net.URI;
import java.nio.file.Path;

/** Builds the model client of a resolved provider choice. */
final class ModelClients {
  private ModelClients() {}

  /** @param maxTokens 0 for the provider's default */
  static ChatModel openAi(URI baseUrl, String apiKey, String model, int maxTokens, HttpOptions options) {
    return new OpenAiChatModel(baseUrl, apiKey, model, maxTokens, options);
  }

  /** @param maxTokens 0 for the model's default (Claude 3: 4096, later: 8192) */
  static ChatModel anthropic(URI baseUrl, String apiKey, String model, int maxTokens, HttpOptions options) {
    return new AnthropicChatModel(baseUrl, apiKey, model, maxTokens, options);
  }

  static ChatModel scripted(Path script) {
    return new ScriptedChatModel(script);
  }
}
