package dev.waymark.app;

import dev.waymark.core.model.ChatModel;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/** Picks the model provider from flags and environment, with a one-line reason when it cannot. */
final class Providers {
  static final String DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
  static final String DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
  static final String OPENAI_URL = "https://api.openai.com/v1";
  static final String ANTHROPIC_URL = "https://api.anthropic.com";

  private Providers() {}

  /** A resolved provider; {@link #create()} builds its client. The key is never printed. */
  record Choice(String provider, String model, URI baseUrl, String apiKey, Path script) {
    ChatModel create() {
      switch (provider) {
        case "none":
          return Providers.NOT_CONFIGURED;
        case "scripted":
          return ModelClients.scripted(script);
        case "anthropic":
          return ModelClients.anthropic(baseUrl, apiKey, model);
        default:
          return ModelClients.openAi(baseUrl, apiKey, model);
      }
    }

    @Override
    public String toString() {
      return "Choice[" + provider + ", " + model + ", " + baseUrl + "]";
    }
  }

  /** The model of a first run with no provider configured: every call says how to configure one. */
  static final ChatModel NOT_CONFIGURED = (request, listener, cancellation) -> {
    throw new dev.waymark.core.model.ModelException(dev.waymark.core.model.ModelException.Kind.AUTHENTICATION,
        "No model is configured. Quit (Ctrl+D) and set OPENAI_API_KEY or ANTHROPIC_API_KEY, or point "
            + "OPENAI_BASE_URL at a local server such as Ollama (http://localhost:11434/v1), then start Waymark again.");
  };

  /** True on a first run: no flag and no environment variable names a provider, a key or a server. */
  static boolean nothingConfigured(ModelOptions options, Map<String, String> env) {
    return options.provider == null && options.script == null && options.baseUrl == null
        && blankToNull(env.get("OPENAI_API_KEY")) == null && blankToNull(env.get("OPENAI_BASE_URL")) == null
        && blankToNull(env.get("ANTHROPIC_API_KEY")) == null;
  }

  static Choice unconfigured() {
    return new Choice("none", "no model", null, null, null);
  }

  /** What a first run shows in the chat. */
  static java.util.List<String> welcome() {
    return java.util.List.of(
        "Welcome to Waymark. No model is configured yet, so prompts cannot be answered. Quit (Ctrl+D) and set one of:",
        "  OPENAI_API_KEY=sk-…            OpenAI (default model " + DEFAULT_OPENAI_MODEL + ")",
        "  ANTHROPIC_API_KEY=sk-ant-…     Anthropic (default model " + DEFAULT_ANTHROPIC_MODEL + ")",
        "  OPENAI_BASE_URL=http://localhost:11434/v1 waymark --model qwen2.5-coder   Ollama, no key needed",
        "Any OpenAI-compatible server works the same way (llama.cpp, vLLM, LM Studio). To try Waymark with no key "
            + "and no network: waymark --demo. F1 shows the keys.");
  }

  static Choice choose(String provider, String model, String baseUrl, Path script, Map<String, String> env,
      CommandLine cli) {
    String name = provider == null ? defaultProvider(script, env) : provider.toLowerCase(Locale.ROOT);
    switch (name) {
      case "scripted": {
        if (script == null) {
          throw new CommandLine.ParameterException(cli, "The scripted provider needs --script FILE.");
        }
        if (!Files.isRegularFile(script)) {
          throw new CommandLine.ParameterException(cli, "No script file at " + script + ".");
        }
        return new Choice(name, model == null ? "scripted" : model, null, null, script);
      }
      case "openai": {
        URI url = uri(firstSet(baseUrl, env.get("OPENAI_BASE_URL"), OPENAI_URL), cli);
        String key = blankToNull(env.get("OPENAI_API_KEY"));
        if (key == null && url.getHost() != null && url.getHost().endsWith("openai.com")) {
          throw new CommandLine.ParameterException(cli, "Set OPENAI_API_KEY to use OpenAI, or point --base-url "
              + "(or OPENAI_BASE_URL) at another OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama.");
        }
        return new Choice(name, model == null ? DEFAULT_OPENAI_MODEL : model, url, key, null);
      }
      case "anthropic": {
        String key = blankToNull(env.get("ANTHROPIC_API_KEY"));
        if (key == null) {
          throw new CommandLine.ParameterException(cli, "Set ANTHROPIC_API_KEY to use the anthropic provider.");
        }
        URI url = uri(firstSet(baseUrl, env.get("ANTHROPIC_BASE_URL"), ANTHROPIC_URL), cli);
        return new Choice(name, model == null ? DEFAULT_ANTHROPIC_MODEL : model, url, key, null);
      }
      default:
        throw new CommandLine.ParameterException(cli, "Unknown provider \"" + provider + "\": use openai, anthropic or scripted.");
    }
  }

  private static String defaultProvider(Path script, Map<String, String> env) {
    if (script != null) {
      return "scripted";
    }
    if (blankToNull(env.get("OPENAI_API_KEY")) == null && blankToNull(env.get("OPENAI_BASE_URL")) == null
        && blankToNull(env.get("ANTHROPIC_API_KEY")) != null) {
      return "anthropic";
    }
    return "openai";
  }

  private static String firstSet(String... values) {
    for (String v : values) {
      if (blankToNull(v) != null) {
        return v.trim();
      }
    }
    return null;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static URI uri(String text, CommandLine cli) {
    try {
      URI uri = URI.create(text);
      if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https")) || uri.getHost() == null) {
        throw new IllegalArgumentException("not an http(s) URL");
      }
      return uri;
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(cli, "Not a usable base URL: \"" + text + "\" (" + e.getMessage() + ").");
    }
  }
}
