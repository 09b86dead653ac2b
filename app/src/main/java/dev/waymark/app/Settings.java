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
    SandboxSetting sandbox) {

  static final Settings NONE = new Settings(List.of(), null, null, null, Map.of(), null, List.of(), List.of(), null, null,
      null);
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  Settings {
    providers = providers == null ? List.of() : List.copyOf(providers);
    keyBindings = keyBindings == null ? Map.of() : Map.copyOf(keyBindings);
    exclusions = exclusions == null ? List.of() : List.copyOf(exclusions);
    trustedProjects = trustedProjects == null ? List.of() : List.copyOf(trustedProjects);
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

  /**
   * Where shell commands run: {@code mode} auto (the sandbox where it can start), required (refuse
   * commands without it) or off; {@code writable} directories besides the project and /tmp
   * (absolute, or from {@code ~/}); {@code network}; {@code gitWritable} opens the project's .git.
   */
  record SandboxSetting(String mode, List<String> writable, Boolean network, Boolean gitWritable) {
    SandboxSetting {
      writable = writable == null ? List.of() : List.copyOf(writable);
    }

    /** These values with every one {@code later} sets taking its place; writable directories add up. */
    SandboxSetting overriddenBy(SandboxSetting later) {
      if (later == null) {
        return this;
      }
      List<String> dirs = new ArrayList<>(writable);
      later.writable().stream().filter(d -> !dirs.contains(d)).forEach(dirs::add);
      return new SandboxSetting(or(later.mode(), mode), dirs, later.network() != null ? later.network() : network,
          later.gitWritable() != null ? later.gitWritable() : gitWritable);
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
    SandboxSetting sandbox = own.sandbox() == null ? null : tightenedOnly(own.sandbox(), ignored);
    Settings allowed = new Settings(providers, own.provider(), own.model(), approval, own.keyBindings(), own.retention(),
        own.exclusions(), List.of(), own.maxStepsPerTurn(), own.maxAnswerMiB(), sandbox);
    Optional<String> warning = ignored.isEmpty() ? Optional.empty() : Optional.of(file + ": this project is not trusted, "
        + "so Waymark ignored its " + String.join("; ", ignored) + ". If you trust it, start once with --trust-project.");
    return new Loaded(user.overriddenBy(allowed), false, warning);
  }

  /**
   * What an untrusted project's sandbox setting may keep: anything that confines commands more
   * (mode required, network or .git closed). Turning the sandbox off, opening the network or .git,
   * or another writable directory would let a cloned repository's commands reach outside it.
   */
  private static SandboxSetting tightenedOnly(SandboxSetting own, List<String> ignored) {
    String mode = own.mode();
    if (mode != null && !"required".equalsIgnoreCase(mode)) {
      ignored.add("sandbox.mode \"" + mode + "\"");
      mode = null;
    }
    if (!own.writable().isEmpty()) {
      ignored.add("sandbox.writable");
    }
    Boolean network = own.network();
    if (Boolean.TRUE.equals(network)) {
      ignored.add("sandbox.network");
      network = null;
    }
    Boolean git = own.gitWritable();
    if (Boolean.TRUE.equals(git)) {
      ignored.add("sandbox.gitWritable");
      git = null;
    }
    return new SandboxSetting(mode, List.of(), network, git);
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
        throw bad(file, text, "/approval", "approval \"" + approval + "\" is not a mode: use ask, auto-edit, auto or yolo.");
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
    if (sandbox != null) {
      if (sandbox.mode() != null) {
        try {
          dev.waymark.core.sandbox.SandboxMode.parse(sandbox.mode());
        } catch (IllegalArgumentException e) {
          throw bad(file, text, "/sandbox/mode", e.getMessage());
        }
      }
      for (int i = 0; i < sandbox.writable().size(); i++) {
        String dir = sandbox.writable().get(i);
        if (dir == null || !(dir.startsWith("/") || dir.startsWith("~/") || dir.equals("~"))) {
          throw bad(file, text, "/sandbox/writable/" + i, "sandbox.writable: \"" + dir + "\" is not a directory path: "
              + "give it from / or from ~/ (e.g. \"~/.m2\").");
        }
      }
    }
    if (maxStepsPerTurn != null && maxStepsPerTurn < 1) {
      throw bad(file, text, "/maxStepsPerTurn", "maxStepsPerTurn must be at least 1 (default "
          + dev.waymark.core.agent.SessionSettings.DEFAULT_MAX_STEPS_PER_TURN + ").");
    }
    if (maxAnswerMiB != null && (maxAnswerMiB < 1 || maxAnswerMiB > 4096)) {
      throw bad(file, text, "/maxAnswerMiB", "maxAnswerMiB must be from 1 to 4096 (default 32).");
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
        later.maxAnswerMiB() != null ? later.maxAnswerMiB() : maxAnswerMiB,
        sandbox == null ? later.sandbox() : sandbox.overriddenBy(later.sandbox()));
  }

  /**
   * The sandbox shell commands should run in: Waymark's data directory hidden, its config
   * directory read-only, key files named by providers hidden; {@code ~/} is the user's home.
   */
  dev.waymark.core.sandbox.SandboxPolicy sandboxPolicy(dev.waymark.core.WaymarkHome home, Map<String, String> env) {
    Path userHome = Path.of(System.getProperty("user.home"));
    List<Path> hidden = new ArrayList<>(List.of(home.root()));
    providers.stream().map(ProviderSetting::apiKeyFile).filter(java.util.Objects::nonNull)
        .forEach(f -> hidden.add(expand(f, userHome)));
    SandboxSetting s = sandbox == null ? new SandboxSetting(null, List.of(), null, null) : sandbox;
    return new dev.waymark.core.sandbox.SandboxPolicy(
        s.mode() == null ? dev.waymark.core.sandbox.SandboxMode.AUTO : dev.waymark.core.sandbox.SandboxMode.parse(s.mode()),
        s.writable().stream().map(d -> expand(d, userHome)).toList(), Boolean.TRUE.equals(s.network()),
        Boolean.TRUE.equals(s.gitWritable()), hidden, List.of(userFile(env).getParent()));
  }

  private static Path expand(String path, Path userHome) {
    return path.equals("~") ? userHome : path.startsWith("~/") ? userHome.resolve(path.substring(2)) : Path.of(path);
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
