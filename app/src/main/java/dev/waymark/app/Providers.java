package dev.waymark.app;

import dev.waymark.core.model.AnthropicChatModel;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.model.ChatRequest;
import dev.waymark.core.model.ChatResponse;
import dev.waymark.core.model.Endpoint;
import dev.waymark.core.model.HttpOptions;
import dev.waymark.core.model.ModelException;
import dev.waymark.core.model.StreamListener;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;

/** Picks the model provider from flags and environment, with a one-line reason when it cannot. */
final class Providers {
  static final String DEFAULT_OPENAI_MODEL = "gpt-4.1-mini";
  static final String DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";
  static final String OPENAI_URL = "https://api.openai.com/v1";
  static final String ANTHROPIC_URL = "https://api.anthropic.com";

  private Providers() {}

  /**
   * A resolved provider; {@link #create()} builds its client. The key is never printed. {@code type}
   * is the wire format (openai, anthropic, scripted, none); {@code keyName} and {@code baseUrlName}
   * say where the key and the server came from, for messages.
   */
  record Choice(String provider, String type, String model, URI baseUrl, String apiKey, Path script, int maxTokens,
      int thinkingBudget, String keyName, String baseUrlName) {
    Choice(String provider, String model, URI baseUrl, String apiKey, Path script) {
      this(provider, provider, model, baseUrl, apiKey, script, 0, 0, null, null);
    }

    ChatModel create() {
      return create(HttpOptions.defaults());
    }

    /** The client, reading answers under {@code options} (e.g. the answer size limit of the settings). */
    ChatModel create(HttpOptions options) {
      switch (type) {
        case "none":
          return Providers.NOT_CONFIGURED;
        case "scripted":
          return ModelClients.scripted(script);
        case "demo":
          return DemoModel.of(script);
        case "anthropic":
          return ModelClients.anthropic(endpoint(), model, maxTokens, thinkingBudget, options);
        default:
          return ModelClients.openAi(endpoint(), model, maxTokens, options);
      }
    }

    Endpoint endpoint() {
      boolean anthropic = type.equals("anthropic");
      return new Endpoint(baseUrl, apiKey,
          keyName != null ? keyName : anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY",
          baseUrlName != null ? baseUrlName : "--base-url or " + (anthropic ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL"));
    }

    @Override
    public String toString() {
      return "Choice[" + provider + ", " + model + ", " + baseUrl + "]";
    }
  }

  /** The model of a first run with no provider configured: every call says how to configure one. */
  static final ChatModel NOT_CONFIGURED = new ChatModel() {
    private static final String WHY = "No model is configured. Quit (Ctrl+D) and set OPENAI_API_KEY or ANTHROPIC_API_KEY, "
        + "or point --base-url (or OPENAI_BASE_URL) at a local server such as Ollama (http://localhost:11434/v1), then "
        + "start Waymark again.";

    @Override
    public ChatResponse stream(ChatRequest request, StreamListener listener, Cancellation cancellation) {
      throw new ModelException(ModelException.Kind.AUTHENTICATION, WHY);
    }

    @Override
    public Optional<String> unavailable() {
      return Optional.of(WHY); // said before a prompt makes a checkpoint that could only fail
    }
  };

  /** True on a first run: no flag and no environment variable names a provider, a key or a server. */
  static boolean nothingConfigured(ModelOptions options, Settings settings, Map<String, String> env) {
    return options.provider == null && options.script == null && options.baseUrl == null
        && settings.provider() == null && settings.providers().isEmpty() && blankToNull(env.get("WAYMARK_PROVIDER")) == null
        && blankToNull(env.get("OPENAI_API_KEY")) == null && blankToNull(env.get("OPENAI_BASE_URL")) == null
        && blankToNull(env.get("ANTHROPIC_API_KEY")) == null;
  }

  static Choice unconfigured() {
    return new Choice("none", "no model", null, null, null);
  }

  /** What a first run shows in the chat. */
  static List<String> welcome() {
    return List.of(
        "Welcome to Waymark. No model is configured yet, so prompts cannot be answered. Quit (Ctrl+D) and set one of:",
        "  OPENAI_API_KEY=sk-…            OpenAI (default model " + DEFAULT_OPENAI_MODEL + ")",
        "  ANTHROPIC_API_KEY=sk-ant-…     Anthropic (default model " + DEFAULT_ANTHROPIC_MODEL + ")",
        "  OPENAI_BASE_URL=http://localhost:11434/v1 waymark --model qwen2.5-coder   Ollama, no key needed",
        "Any OpenAI-compatible server works the same way (llama.cpp, vLLM, LM Studio). To try Waymark with no key "
            + "and no network: waymark --demo. F1 shows the keys.");
  }

  /**
   * The provider, model, server and key, each from the first place that sets it: the flags, then
   * the environment ({@code WAYMARK_PROVIDER}, {@code WAYMARK_MODEL}, and for the built-in
   * providers {@code OPENAI_BASE_URL} / {@code ANTHROPIC_BASE_URL}), then the settings files, then
   * the defaults. Keys come only from the environment variable a provider names, or a 0600 file.
   */
  static Choice choose(ModelOptions flags, Settings settings, Map<String, String> env, CommandLine cli) {
    String id = firstSet(flags.provider, env.get("WAYMARK_PROVIDER"), settings.provider());
    if (id == null) {
      id = defaultProvider(flags.script, env);
    }
    id = id.toLowerCase(Locale.ROOT);
    Settings.ProviderSetting configured = null;
    for (Settings.ProviderSetting p : settings.providers()) {
      if (p.id().equalsIgnoreCase(id)) {
        configured = p;
      }
    }
    boolean builtIn = List.of("openai", "anthropic", "scripted").contains(id);
    if (configured == null && !builtIn) {
      List<String> known = new ArrayList<>(List.of("openai", "anthropic", "scripted"));
      settings.providers().forEach(p -> known.add(p.id()));
      throw new CommandLine.ParameterException(cli, "Unknown provider \"" + id + "\": use " + String.join(", ", known)
          + " (providers are defined in settings.json; a local OpenAI-compatible server such as Ollama is "
          + "--provider openai --base-url http://localhost:11434/v1).");
    }
    String type = configured != null ? configured.type() : id;
    String model = firstSet(flags.model, env.get("WAYMARK_MODEL"), settings.model(),
        configured != null && !configured.models().isEmpty() ? configured.models().get(0) : null);
    switch (type) {
      case "scripted": {
        Path script = flags.script != null ? flags.script
            : configured != null && configured.script() != null ? Path.of(configured.script()) : null;
        if (script == null) {
          throw new CommandLine.ParameterException(cli, "The scripted provider needs --script FILE.");
        }
        if (!Files.isRegularFile(script)) {
          throw new CommandLine.ParameterException(cli, "No script file at " + script + ".");
        }
        return new Choice(id, "scripted", model == null ? "scripted" : model, null, null, script, 0, 0, null, null);
      }
      case "openai": {
        URI url = uri(firstSet(flags.baseUrl, builtIn ? env.get("OPENAI_BASE_URL") : null,
            configured != null ? configured.baseUrl() : null, OPENAI_URL), cli);
        Key key = key(configured, "OPENAI_API_KEY", env, cli);
        if (key.value() == null && url.getHost() != null && url.getHost().endsWith("openai.com")) {
          throw new CommandLine.ParameterException(cli, "Set " + key.name() + " to use OpenAI, or point --base-url "
              + "(or OPENAI_BASE_URL) at another OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama.");
        }
        if (flags.thinkingBudget != null || configured != null && configured.thinkingBudget() != null) {
          throw new CommandLine.ParameterException(cli, (flags.thinkingBudget != null ? "--thinking-budget"
              : "The thinkingBudget of provider " + id) + " is for Anthropic's extended thinking; OpenAI-compatible "
              + "reasoning models think without one.");
        }
        String chosen = model == null ? DEFAULT_OPENAI_MODEL : model;
        return new Choice(id, "openai", chosen, url, key.value(), null, maxTokens(configured, chosen, cli), 0, key.name(),
            baseUrlName(id, builtIn, "OPENAI_BASE_URL", configured));
      }
      default: {
        Key key = key(configured, "ANTHROPIC_API_KEY", env, cli);
        if (key.value() == null) {
          throw new CommandLine.ParameterException(cli, "Set " + key.name() + " to use the " + id + " provider.");
        }
        URI url = uri(firstSet(flags.baseUrl, builtIn ? env.get("ANTHROPIC_BASE_URL") : null,
            configured != null ? configured.baseUrl() : null, ANTHROPIC_URL), cli);
        String chosen = model == null ? DEFAULT_ANTHROPIC_MODEL : model;
        int limit = maxTokens(configured, chosen, cli);
        int thinking = flags.thinkingBudget != null ? flags.thinkingBudget
            : configured != null && configured.thinkingBudget() != null ? configured.thinkingBudget() : 0;
        try {
          AnthropicChatModel.checkThinking(limit, thinking);
        } catch (IllegalArgumentException e) {
          throw new CommandLine.ParameterException(cli, "For " + chosen + ", " + e.getMessage() + " (set by "
              + (flags.thinkingBudget != null ? "--thinking-budget" : "the thinkingBudget of provider " + id) + ").");
        }
        return new Choice(id, "anthropic", chosen, url, key.value(), null, limit, thinking, key.name(),
            baseUrlName(id, builtIn, "ANTHROPIC_BASE_URL", configured));
      }
    }
  }

  /** Where the server's address is set, in the words a message uses. */
  private static String baseUrlName(String id, boolean builtIn, String variable, Settings.ProviderSetting configured) {
    if (!builtIn) {
      return "--base-url or the baseUrl of provider \"" + id + "\" in settings.json";
    }
    return "--base-url or " + variable + (configured != null && configured.baseUrl() != null
        ? " or the baseUrl of provider \"" + id + "\" in settings.json" : "");
  }

  /** The configured output limit for the model, or 0 for the provider's default. */
  private static int maxTokens(Settings.ProviderSetting configured, String model, CommandLine cli) {
    Integer limit = configured == null ? null : configured.maxTokensFor(model);
    if (limit == null) {
      return 0;
    }
    if (limit < 1) {
      throw new CommandLine.ParameterException(cli, "The maxTokens of provider " + configured.id() + " must be a "
          + "positive number of tokens, not " + limit + ".");
    }
    return limit;
  }

  /** An API key (null when none is set) and where it comes from, e.g. {@code MY_KEY} or {@code the key file ~/.k}. */
  record Key(String value, String name) {}

  /** The API key: from the environment variable the provider names, else from its key file (which must be 0600). */
  private static Key key(Settings.ProviderSetting configured, String defaultEnv, Map<String, String> env, CommandLine cli) {
    String variable = configured != null && configured.apiKeyEnv() != null ? configured.apiKeyEnv() : defaultEnv;
    String key = blankToNull(env.get(variable));
    if (key != null || configured == null || configured.apiKeyFile() == null) {
      return new Key(key, variable);
    }
    Path file = Path.of(configured.apiKeyFile().replaceFirst("^~(?=/)", System.getProperty("user.home")));
    try {
      var permissions = Files.getPosixFilePermissions(file);
      if (permissions.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
        throw new CommandLine.ParameterException(cli, "The key file " + file + " of provider " + configured.id()
            + " must be readable only by you: chmod 600 " + file);
      }
      String fromFile = blankToNull(Files.readString(file).strip());
      return fromFile != null ? new Key(fromFile, "the key file " + file) : new Key(null, variable + " or the key file " + file);
    } catch (IOException | UnsupportedOperationException e) {
      throw new CommandLine.ParameterException(cli, "Cannot read the key file " + file + " of provider " + configured.id()
          + ": " + e.getMessage());
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
      String meant = text.contains("://") ? "" : "; did you mean http://" + text + "?";
      throw new CommandLine.ParameterException(cli, "Not a usable base URL: \"" + text + "\" (" + e.getMessage() + ")"
          + (meant.isEmpty() ? "." : meant));
    }
  }
}
