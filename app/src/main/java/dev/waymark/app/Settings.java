package dev.waymark.app;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Settings, from {@code $XDG_CONFIG_HOME/waymark/settings.json} (default
 * {@code ~/.config/waymark/settings.json}), then {@code .waymark/settings.json} in the project,
 * each overriding the one before; the environment and the flags override both (see
 * {@link Providers}). Secrets are never in these files: a provider names the environment variable
 * (or a 0600 file) its key is read from.
 */
record Settings(
    List<ProviderSetting> providers,
    String provider,
    String model,
    String approval,
    Map<String, List<String>> keyBindings,
    Retention retention,
    List<String> exclusions,
    List<String> trustedProjects,
    Integer maxStepsPerTurn,
    Integer maxAnswerMiB,
    Map<String, Integer> contextWindows,
    Integer autoCompactPercent) {

  static final Settings NONE = new Settings(List.of(), null, null, null, Map.of(), null, List.of(), List.of(), null, null);

  /** Settings from before context windows were settable. */
  Settings(List<ProviderSetting> providers, String provider, String model, String approval,
      Map<String, List<String>> keyBindings, Retention retention, List<String> exclusions, List<String> trustedProjects,
      Integer maxStepsPerTurn, Integer maxAnswerMiB) {
    this(providers, provider, model, approval, keyBindings, retention, exclusions, trustedProjects, maxStepsPerTurn,
        maxAnswerMiB, null, null);
  }
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  Settings {
    providers = providers == null ? List.of() : List.copyOf(providers);
    keyBindings = keyBindings == null ? Map.of() : Map.copyOf(keyBindings);
    exclusions = exclusions == null ? List.of() : List.copyOf(exclusions);
    trustedProjects = trustedProjects == null ? List.of() : List.copyOf(trustedProjects);
    contextWindows = contextWindows == null ? Map.of() : Map.copyOf(contextWindows);
  }

  /** A model provider: {@code type} openai (any compatible server), anthropic or scripted. */
  record ProviderSetting(String id, String type, String baseUrl, String apiKeyEnv, String apiKeyFile, List<String> models,
      String script, Integer maxTokens, Map<String, Integer> maxTokensByModel, Integer thinkingBudget) {
    ProviderSetting {
      models = models == null ? List.of() : List.copyOf(models);
      maxTokensByModel = maxTokensByModel == null ? Map.of() : Map.copyOf(maxTokensByModel);
    }

    /** The output limit for {@code model}: its own, else the provider's; null for the default. */
    Integer maxTokensFor(String model) {
      Integer own = model == null ? null : maxTokensByModel.get(model);
      return own != null ? own : maxTokens;
    }
  }

  /** How many automatic checkpoints per tab keep their tags, and for how many days. */
  record Retention(Integer keepPerTab, Integer maxAgeDays) {}

  /** A settings file that cannot be used; the message names its path, line and column. */
  static final class BadSettings extends Exception {
    BadSettings(String message) {
      super(message);
    }
  }

  static Path userFile(Map<String, String> env) {
    String xdg = env.get("XDG_CONFIG_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
    return base.resolve("waymark").resolve("settings.json");
  }

  static Path projectFile(Path project) {
    return project.resolve(".waymark").resolve("settings.json");
  }

  /** The user's settings, overridden by the project's as far as the project is trusted (see {@link #resolve}). */
  static Settings load(Map<String, String> env, Path project) throws BadSettings {
    return resolve(env, project).settings();
  }

  /**
   * The settings in effect, whether the project is trusted, and, when its file asked for what an
   * untrusted project may not have, the one-line warning that says what was ignored.
   */
  record Loaded(Settings settings, boolean trusted, Optional<String> warning) {}

  /**
   * The user's settings overridden by the project's. A project the user has not trusted (a
   * cloned repository, a file the agent wrote) may not raise the approval mode above the user's
   * own, nor set a provider's {@code baseUrl}, {@code apiKeyEnv} or {@code apiKeyFile}: those
   * would send a key to a server of its choosing. Such values are ignored, and the warning names
   * them. Only the user's file can trust a project.
   */
  static Loaded resolve(Map<String, String> env, Path project) throws BadSettings {
    Settings user = read(userFile(env));
    Path file = projectFile(project);
    Settings own = read(file);
    boolean trusted = user.trustedProjects().contains(canonical(project));
    if (trusted) {
      return new Loaded(user.overriddenBy(own), true, Optional.empty());
    }
    List<String> ignored = new ArrayList<>();
    String approval = own.approval();
    if (approval != null && rank(approval) > rank(user.approval() == null ? "ask" : user.approval())) {
      ignored.add("approval \"" + approval + "\" (above your own \"" + (user.approval() == null ? "ask" : user.approval()) + "\")");
      approval = null;
    }
    List<ProviderSetting> providers = new ArrayList<>();
    for (ProviderSetting p : own.providers()) {
      ProviderSetting mine = user.providers().stream().filter(u -> u.id().equals(p.id())).findFirst().orElse(null);
      List<String> fields = new ArrayList<>();
      if (p.baseUrl() != null) {
        fields.add("baseUrl");
      }
      if (p.apiKeyEnv() != null) {
        fields.add("apiKeyEnv");
      }
      if (p.apiKeyFile() != null) {
        fields.add("apiKeyFile");
      }
      if (!fields.isEmpty()) {
        ignored.add(String.join(", ", fields) + " of provider \"" + p.id() + "\"");
      }
      providers.add(new ProviderSetting(p.id(), p.type(), mine == null ? null : mine.baseUrl(),
          mine == null ? null : mine.apiKeyEnv(), mine == null ? null : mine.apiKeyFile(), p.models(), p.script(),
          p.maxTokens(), p.maxTokensByModel(), p.thinkingBudget()));
    }
    Settings allowed = new Settings(providers, own.provider(), own.model(), approval, own.keyBindings(), own.retention(),
        own.exclusions(), List.of(), own.maxStepsPerTurn(), own.maxAnswerMiB(), own.contextWindows(),
        own.autoCompactPercent());
    Optional<String> warning = ignored.isEmpty() ? Optional.empty() : Optional.of(file + ": this project is not trusted, "
        + "so Waymark ignored its " + String.join("; ", ignored) + ". If you trust it, start once with --trust-project.");
    return new Loaded(user.overriddenBy(allowed), false, warning);
  }

  /** Records {@code project} (its real path) as trusted in the user's settings file, keeping everything else in it. */
  static void trust(Map<String, String> env, Path project) throws BadSettings {
    Path file = userFile(env);
    read(file); // a broken file is reported, never overwritten
    String path = canonical(project);
    try {
      com.fasterxml.jackson.databind.node.ObjectNode root = Files.exists(file)
          ? (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(Files.readString(file))
          : JSON.createObjectNode();
      com.fasterxml.jackson.databind.node.ArrayNode trusted = root.has("trustedProjects")
          ? (com.fasterxml.jackson.databind.node.ArrayNode) root.get("trustedProjects") : root.putArray("trustedProjects");
      for (var entry : trusted) {
        if (entry.asText().equals(path)) {
          return;
        }
      }
      trusted.add(path);
      Files.createDirectories(file.getParent());
      Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temporary, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
      Files.move(temporary, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException | ClassCastException e) {
      throw new BadSettings(file + ": cannot record the trusted project: " + e.getMessage());
    }
  }

  private static String canonical(Path project) {
    try {
      return project.toRealPath().toString();
    } catch (IOException e) {
      return project.toAbsolutePath().normalize().toString();
    }
  }

  /** ask < auto-edit < yolo; an unknown mode ranks highest, so it is never taken from an untrusted project. */
  private static int rank(String approval) {
    try {
      return dev.waymark.core.tool.ApprovalMode.parse(approval).ordinal();
    } catch (IllegalArgumentException e) {
      return Integer.MAX_VALUE;
    }
  }

  /** One file; a missing file means no settings. */
  static Settings read(Path file) throws BadSettings {
    if (!Files.exists(file)) {
      return NONE;
    }
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new BadSettings(file + ": cannot be read: " + e.getMessage());
    }
    try {
      Settings s = JSON.readValue(text, Settings.class);
      if (s == null) {
        throw new BadSettings(file + ": empty; write {} for no settings.");
      }
      s.check(file, text);
      return s;
    } catch (UnrecognizedPropertyException e) {
      throw new BadSettings(file + where(e) + ": unknown setting \"" + e.getPropertyName() + "\" (known: "
          + String.join(", ", e.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList()) + ").");
    } catch (JsonProcessingException e) {
      throw new BadSettings(file + where(e) + ": " + e.getOriginalMessage().lines().findFirst().orElse("not valid JSON"));
    }
  }

  /** Every value a settings file can get wrong, each reported where it stands in the file. */
  private void check(Path file, String text) throws BadSettings {
    if (approval != null) {
      try {
        dev.waymark.core.tool.ApprovalMode.parse(approval);
      } catch (IllegalArgumentException e) {
        throw bad(file, text, "/approval", "approval \"" + approval + "\" is not a mode: use ask, auto-edit or yolo.");
      }
    }
    for (int i = 0; i < providers.size(); i++) {
      ProviderSetting p = providers.get(i);
      String at = "/providers/" + i;
      if (p.id() == null || p.id().isBlank()) {
        throw bad(file, text, p.id() == null ? at : at + "/id", "every provider needs an \"id\".");
      }
      if (p.type() == null || !List.of("openai", "anthropic", "scripted").contains(p.type())) {
        throw bad(file, text, p.type() == null ? at : at + "/type",
            "provider \"" + p.id() + "\" needs \"type\": openai, anthropic or scripted.");
      }
      if (p.thinkingBudget() != null && !"anthropic".equals(p.type())) {
        throw bad(file, text, at + "/thinkingBudget", "provider \"" + p.id() + "\": thinkingBudget is for Anthropic's "
            + "extended thinking (type anthropic).");
      }
      if (p.thinkingBudget() != null && p.thinkingBudget() != 0
          && p.thinkingBudget() < dev.waymark.core.model.AnthropicChatModel.MIN_THINKING_BUDGET) {
        throw bad(file, text, at + "/thinkingBudget", "provider \"" + p.id() + "\": thinkingBudget must be 0 (off) or at "
            + "least " + dev.waymark.core.model.AnthropicChatModel.MIN_THINKING_BUDGET + " tokens.");
      }
      if (p.baseUrl() != null && !isHttpUrl(p.baseUrl())) {
        throw bad(file, text, at + "/baseUrl", "provider \"" + p.id() + "\": baseUrl \"" + p.baseUrl()
            + "\" is not an http(s) URL, e.g. http://localhost:11434/v1.");
      }
    }
    if (retention != null) {
      if (retention.keepPerTab() != null && retention.keepPerTab() < 1) {
        throw bad(file, text, "/retention/keepPerTab", "retention.keepPerTab must be at least 1.");
      }
      if (retention.maxAgeDays() != null && retention.maxAgeDays() < 1) {
        throw bad(file, text, "/retention/maxAgeDays", "retention.maxAgeDays must be at least 1.");
      }
    }
    if (maxStepsPerTurn != null && maxStepsPerTurn < 1) {
      throw bad(file, text, "/maxStepsPerTurn", "maxStepsPerTurn must be at least 1 (default "
          + dev.waymark.core.agent.SessionSettings.DEFAULT_MAX_STEPS_PER_TURN + ").");
    }
    if (maxAnswerMiB != null && (maxAnswerMiB < 1 || maxAnswerMiB > 4096)) {
      throw bad(file, text, "/maxAnswerMiB", "maxAnswerMiB must be from 1 to 4096 (default 32).");
    }
    if (autoCompactPercent != null && (autoCompactPercent < 0 || autoCompactPercent > 100)) {
      throw bad(file, text, "/autoCompactPercent", "autoCompactPercent must be from 0 (never) to 100 (default "
          + dev.waymark.core.agent.SessionSettings.DEFAULT_COMPACT_PERCENT + ").");
    }
    for (var window : contextWindows.entrySet()) {
      if (window.getValue() == null || window.getValue() < 1024) {
        throw bad(file, text, "/contextWindows/" + window.getKey().replace("~", "~0").replace("/", "~1"),
            "contextWindows: the window of \"" + window.getKey() + "\" must be a number of tokens, at least 1024.");
      }
    }
    for (var binding : keyBindings.entrySet()) {
      try {
        dev.waymark.tui.terminal.KeyMap.defaults().withOverrides(Map.of(binding.getKey(), binding.getValue()));
      } catch (IllegalArgumentException e) {
        throw bad(file, text, "/keyBindings/" + binding.getKey().replace("~", "~0").replace("/", "~1"), e.getMessage());
      }
    }
  }

  private static boolean isHttpUrl(String text) {
    try {
      java.net.URI uri = java.net.URI.create(text.trim());
      return uri.getHost() != null && ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** A problem with the value at {@code pointer} (a JSON pointer), located in the file's text. */
  private static BadSettings bad(Path file, String text, String pointer, String message) {
    return new BadSettings(file + locate(text, pointer) + ": " + message);
  }

  /** {@code :line:column} of the value at {@code pointer}, or "" when it cannot be found. */
  static String locate(String text, String pointer) {
    try (com.fasterxml.jackson.core.JsonParser parser = JSON.getFactory().createParser(text)) {
      for (var token = parser.nextToken(); token != null; token = parser.nextToken()) {
        if (token != com.fasterxml.jackson.core.JsonToken.FIELD_NAME && !token.isStructEnd()
            && parser.getParsingContext().pathAsPointer().toString().equals(pointer)) {
          JsonLocation at = parser.getTokenLocation();
          return ":" + at.getLineNr() + ":" + at.getColumnNr();
        }
      }
    } catch (IOException e) {
      // already parsed once; cannot happen
    }
    return "";
  }

  private static String where(JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    return at == null || at.getLineNr() < 0 ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
  }

  /** These settings with every value that {@code later} sets taking its place; providers merge by id. */
  Settings overriddenBy(Settings later) {
    Map<String, ProviderSetting> byId = new LinkedHashMap<>();
    for (ProviderSetting p : providers) {
      byId.put(p.id(), p);
    }
    for (ProviderSetting p : later.providers()) {
      byId.put(p.id(), p);
    }
    Map<String, List<String>> keys = new LinkedHashMap<>(keyBindings);
    keys.putAll(later.keyBindings());
    Retention r = retention;
    if (later.retention() != null) {
      r = new Retention(
          later.retention().keepPerTab() != null ? later.retention().keepPerTab() : retention == null ? null : retention.keepPerTab(),
          later.retention().maxAgeDays() != null ? later.retention().maxAgeDays() : retention == null ? null : retention.maxAgeDays());
    }
    List<String> excluded = new ArrayList<>(exclusions);
    later.exclusions().stream().filter(e -> !excluded.contains(e)).forEach(excluded::add);
    return new Settings(new ArrayList<>(byId.values()), or(later.provider(), provider), or(later.model(), model),
        or(later.approval(), approval), keys, r, excluded, trustedProjects,
        later.maxStepsPerTurn() != null ? later.maxStepsPerTurn() : maxStepsPerTurn,
        later.maxAnswerMiB() != null ? later.maxAnswerMiB() : maxAnswerMiB, windows(later),
        later.autoCompactPercent() != null ? later.autoCompactPercent() : autoCompactPercent);
  }

  private Map<String, Integer> windows(Settings later) {
    Map<String, Integer> merged = new LinkedHashMap<>(contextWindows);
    merged.putAll(later.contextWindows());
    return merged;
  }

  /** The window of {@code model} in tokens (settings first, then the known models), 0 when unknown. */
  long contextWindow(String model) {
    return dev.waymark.core.model.ContextWindows.of(model, contextWindows).orElse(0);
  }

  /** How full the window may get before a prompt compacts the conversation first, in percent (0: never). */
  int compactPercent() {
    return autoCompactPercent != null ? autoCompactPercent : dev.waymark.core.agent.SessionSettings.DEFAULT_COMPACT_PERCENT;
  }

  /** How a tab of this run works: the model, approvals, limits and its context window. */
  dev.waymark.core.agent.SessionSettings session(String model, dev.waymark.core.tool.ApprovalMode approval,
      boolean interactive) {
    return new dev.waymark.core.agent.SessionSettings(model, approval, interactive, null, stepsPerTurn(),
        contextWindow(model), compactPercent());
  }

  dev.waymark.core.checkpoint.RetentionPolicy retentionPolicy() {
    var d = dev.waymark.core.checkpoint.RetentionPolicy.DEFAULT;
    if (retention == null) {
      return d;
    }
    return new dev.waymark.core.checkpoint.RetentionPolicy(
        retention.keepPerTab() != null ? retention.keepPerTab() : d.keepPerTab(),
        retention.maxAgeDays() != null ? java.time.Duration.ofDays(retention.maxAgeDays()) : d.maxAge());
  }

  /** How many tool calls one turn may run. */
  int stepsPerTurn() {
    return maxStepsPerTurn != null ? maxStepsPerTurn : dev.waymark.core.agent.SessionSettings.DEFAULT_MAX_STEPS_PER_TURN;
  }

  /** How many bytes of one model answer are read at most. */
  long answerBytes() {
    return maxAnswerMiB != null ? (long) maxAnswerMiB << 20 : dev.waymark.core.model.HttpOptions.defaults().maxAnswerBytes();
  }

  /** The tools' limits; shell commands do not get the key variable of any provider named here. */
  dev.waymark.core.tool.ToolSettings toolSettings() {
    return dev.waymark.core.tool.ToolSettings.DEFAULTS.withholding(
        providers.stream().map(ProviderSetting::apiKeyEnv).filter(java.util.Objects::nonNull).toList());
  }

  private static String or(String a, String b) {
    return a != null ? a : b;
  }
}
