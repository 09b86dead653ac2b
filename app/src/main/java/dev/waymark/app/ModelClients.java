package dev.waymark.app;

import dev.waymark.core.model.AnthropicChatModel;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.OpenAiChatModel;
import dev.waymark.core.model.ScriptedChatModel;
import java.net.URI;
import java.nio.file.Path;

/** Builds the model client of a resolved provider choice. */
final class ModelClients {
  private ModelClients() {}

  static ChatModel openAi(URI baseUrl, String apiKey, String model) {
    return new OpenAiChatModel(baseUrl, apiKey, model);
  }

  static ChatModel anthropic(URI baseUrl, String apiKey, String model) {
    return new AnthropicChatModel(baseUrl, apiKey, model);
  }

  static ChatModel scripted(Path script) {
    return new ScriptedChatModel(script);
  }
}
