package dev.waymark.app;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.context.InstructionFiles;
import dev.waymark.core.mcp.McpServerConfig;
import dev.waymark.core.model.AnthropicChatModel;
import dev.waymark.core.model.ContextWindows;
import dev.waymark.core.model.HttpOptions;
import dev.waymark.core.permission.PermissionRule;
import dev.waymark.core.permission.Permissions;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import dev.waymark.core.subagent.WorkspaceSubagents;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.WebAccess;
import dev.waymark.core.tool.WebSearch;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.terminal.KeyMap;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

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
    List<String> allow,
    List<String> deny,
    Boolean bell,
    Map<String, Price> prices,
    Map<String, McpServerSetting> mcpServers,
    List<String> allowedTools,
    Map<String, Integer> contextWindows,
    Integer autoCompactPercent,
    SandboxSetting sandbox,
    WebSetting web,
    Map<String, List<HookSetting>> hooks,
    Boolean notifications, Integer maxParallelSubagents) {

  static final Settings NONE = new Settings(List.of(), null, null, null, Map.of(), null, List.of(), List.of(), null, null);
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  Settings {
    providers = providers == null ? List.of() : List.copyOf(providers);
    keyBindings = keyBindings == null ? Map.of() : Map.copyOf(keyBindings);
    exclusions = exclusions == null ? List.of() : List.copyOf(exclusions);
    trustedProjects = trustedProjects == null ? List.of() : List.copyOf(trustedProjects);
    allow = allow == null ? List.of() : List.copyOf(allow);
    deny = deny == null ? List.of() : List.copyOf(deny);
    prices = prices == null ? Map.of() : Map.copyOf(prices);
    mcpServers = mcpServers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(mcpServers));
    allowedTools = allowedTools == null ? List.of() : List.copyOf(allowedTools);
    contextWindows = contextWindows == null ? Map.of() : Map.copyOf(contextWindows);
    hooks = hooks == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(hooks));
  }

  /** The settings before allow and deny rules, the bell setting, prices, MCP servers and context windows existed. */
  Settings(List<ProviderSetting> providers, String provider, String model, String approval,
      Map<String, List<String>> keyBindings, Retention retention, List<String> exclusions, List<String> trustedProjects,
      Integer maxStepsPerTurn, Integer maxAnswerMiB) {
    this(providers, provider, model, approval, keyBindings, retention, exclusions, trustedProjects, maxStepsPerTurn,
        maxAnswerMiB, List.of(), List.of(), null, Map.of(), Map.of(), List.of(), Map.of(), null, null, null, null, null, null);
  }

  /** What a model costs, in dollars per million tokens read ({@code input}) and written ({@code output}). */
  record Price(Double input, Double output) {}

  /** The price table for /status, by model name; empty when none is set (tokens only). */
  Map<String, RunInfo.ModelPrice> priceTable() {
    Map<String, RunInfo.ModelPrice> table = new LinkedHashMap<>();
    prices.forEach((model, p) -> table.put(model, new RunInfo.ModelPrice(p.input(), p.output())));
    return table;
  }

  /**
   * An MCP server, in the shape Claude Code, Cursor and Gemini CLI use: {@code command} (with
   * {@code args}, {@code env}, {@code cwd}) for a program spoken to over stdio, or {@code url}
   * (with {@code headers}) for streamable HTTP. Values of {@code env} and {@code headers} may name
   * environment variables as {@code ${NAME}}, so that no token is written here.
   */
  record McpServerSetting(String command, List<String> args, Map<String, String> env, String cwd, String url,
      Map<String, String> headers, Integer timeoutSeconds) {
    McpServerSetting {
      args = args == null ? List.of() : List.copyOf(args);
      env = env == null ? Map.of() : Map.copyOf(env);
      headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    McpServerConfig config(String name) {
      return new McpServerConfig(name, command, args, env, cwd, url, headers,
          timeoutSeconds == null ? null : Duration.ofSeconds(timeoutSeconds), null);
    }
  }

  /** The MCP servers to start, in the order the files name them. */
  List<McpServerConfig> mcpConfigs() {
    return mcpServers.entrySet().stream().map(e -> e.getValue().config(e.getKey())).toList();
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
  record Loaded(Settings settings, boolean trusted, Optional<String> warning,
      List<Permissions.Entry> rules) {
    Loaded(Settings settings, boolean trusted, Optional<String> warning) {
      this(settings, trusted, warning, List.of());
    }

    /** The allow and deny rules in force, each with the file it came from; saved rules go to that file. */
    Permissions permissions(Map<String, String> env, Path project) {
      return new Permissions(rules, new RuleFiles(env, project, trusted));
    }
  }

  /** The rules of one file, tagged with where they live (the file was checked, so every rule parses). */
  private static List<Permissions.Entry> rules(Settings file,
      Permissions.Scope scope, boolean allowRules) {
    List<Permissions.Entry> rules = new ArrayList<>();
    for (String rule : file.deny()) {
      rules.add(new Permissions.Entry(scope, true,
          PermissionRule.parse(rule)));
    }
    for (String rule : allowRules ? file.allow() : List.<String>of()) {
      rules.add(new Permissions.Entry(scope, false,
          PermissionRule.parse(rule)));
    }
    return rules;
  }

  /**
   * The user's settings overridden by the project's. A project the user has not trusted (a
   * cloned repository, a file the agent wrote) may not raise the approval mode above the user's
   * own, nor define or choose a provider (a server of its choosing would get a key, a scripted
   * model of its own would run commands), nor set {@code exclusions} (which could leave every
   * change unrecorded), nor keep fewer checkpoints or keep them less long, nor bind keys, nor raise
   * the limits of a turn or an answer. Such values are ignored, and the warning names them. Only the user can trust a
   * project: in their settings' {@code trustedProjects} or Waymark's own list beside it.
   */
  static Loaded resolve(Map<String, String> env, Path project) throws BadSettings {
    Settings user = read(userFile(env));
    Path file = projectFile(project);
    Settings own = read(file);
    String path = canonical(project);
    boolean trusted = user.trustedProjects().contains(path) || trustedHere(env).contains(path);
    List<Permissions.Entry> rules = new ArrayList<>(
        rules(user, Permissions.Scope.USER, true));
    // a project's deny rules only take away, so they hold even untrusted; its allow rules wait for trust
    rules.addAll(rules(own, Permissions.Scope.PROJECT, trusted));
    if (trusted) {
      return new Loaded(user.overriddenBy(own), true, Optional.empty(), rules);
    }
    List<String> ignored = new ArrayList<>();
    if (!own.allow().isEmpty()) {
      ignored.add("allow rules " + String.join(", ", own.allow()));
    }
    String approval = own.approval();
    if (approval != null && rank(approval) > rank(user.approval() == null ? "ask" : user.approval())) {
      ignored.add("approval \"" + approval + "\" (above your own \"" + (user.approval() == null ? "ask" : user.approval()) + "\")");
      approval = null;
    }
    // A provider is a program to run or a server to send the conversation and a key to: a scripted "model" in the
    // repository would run commands under the user's own approval mode. The project may not define one nor choose one.
    if (!own.providers().isEmpty()) {
      ignored.add("providers " + own.providers().stream().map(p -> "\"" + p.id() + "\"").toList());
    }
    if (own.provider() != null) {
      ignored.add("provider \"" + own.provider() + "\"");
    }
    // what no shell command's change is recorded for is the user's call: "*" would turn off undo
    if (!own.exclusions().isEmpty()) {
      ignored.add("exclusions " + String.join(", ", own.exclusions().stream().map(e -> "\"" + e + "\"").toList()));
    }
    if (!own.mcpServers().isEmpty()) {
      // a cloned repository must not run programs, nor send requests with the user's tokens
      ignored.add("MCP servers " + String.join(", ", own.mcpServers().keySet()) + " (not started)");
    }
    if (!own.allowedTools().isEmpty()) {
      ignored.add("allowedTools");
    }
    // the model is what your key pays for: a project's choice could cost many times yours
    String model = own.model();
    if (model != null && !model.equals(user.model())) {
      ignored.add("model \"" + model + "\"");
      model = null;
    }
    SandboxSetting sandbox = own.sandbox() == null ? null : own.sandbox().tightenedOnly(ignored);
    // a host listed here is fetched whatever its address: a project could point web_fetch at your own network
    if (own.web() != null && !own.web().allowHosts().isEmpty()) {
      ignored.add("web.allowHosts");
    }
    if (own.web() != null && own.web().search() != null) {
      ignored.add("web.search");
    }
    // a hook is a program run with the user's rights at every call: a cloned repository must not start one
    if (!own.hooks().isEmpty()) {
      ignored.add("hooks (not run: " + HookSetting.listed(own.hooks()) + ")");
    }
    // keys are the user's hands: a project rebinding them could take away the interrupt or the quit
    if (!own.keyBindings().isEmpty()) {
      ignored.add("keyBindings");
    }
    Retention retention = own.retention() == null ? null : keptAtLeastAsLong(own.retention(), user.retentionPolicy(), ignored);
    Integer steps = own.maxStepsPerTurn();
    if (steps != null && steps > user.stepsPerTurn()) {
      ignored.add("maxStepsPerTurn " + steps + " (above your " + user.stepsPerTurn() + ")");
      steps = null;
    }
    Integer answerMiB = own.maxAnswerMiB();
    if (answerMiB != null && ((long) answerMiB << 20) > user.answerBytes()) {
      ignored.add("maxAnswerMiB " + answerMiB + " (above your " + (user.answerBytes() >> 20) + ")");
      answerMiB = null;
    }
    Integer parallel = own.maxParallelSubagents();
    if (parallel != null && parallel > user.parallelSubagents()) {
      ignored.add("maxParallelSubagents " + parallel + " (above your " + user.parallelSubagents() + ")");
      parallel = null;
    }
    Integer compact = own.autoCompactPercent();
    int users = user.compactPercent();
    if (compact != null && users != 0 && (compact == 0 || compact > users)) {
      ignored.add("autoCompactPercent " + compact + " (above your " + users + ")");
      compact = null;
    }
    Map<String, Integer> windows = new LinkedHashMap<>();
    own.contextWindows().forEach((name, window) -> {
      long yours = user.contextWindow(name);
      if (yours > 0 && window > yours) {
        ignored.add("contextWindows \"" + name + "\" " + window + " (above your " + yours + ")");
      } else {
        windows.put(name, window);
      }
    });
    Settings allowed = new Settings(List.of(), null, model, approval, Map.of(), retention,
        List.of(), List.of(), steps, answerMiB, List.of(), own.deny(), own.bell(),
        own.prices(), Map.of(), List.of(), windows, compact,
        sandbox, null, null, own.notifications(), parallel);
    Optional<String> warning = ignored.isEmpty() ? Optional.empty() : Optional.of(file + ": this project is not trusted, "
        + "so Waymark ignored its " + String.join("; ", ignored) + ". If you trust it, start once with --trust-project.");
    return new Loaded(user.overriddenBy(allowed), false, warning, rules);
  }

  /**
   * What an untrusted project's retention may keep: checkpoints kept as many and as long as the
   * user's settings keep them, or more; fewer would take undo away.
   */
  private static Retention keptAtLeastAsLong(Retention own, RetentionPolicy users,
      List<String> ignored) {
    Integer keep = own.keepPerTab();
    if (keep != null && keep < users.keepPerTab()) {
      ignored.add("retention keepPerTab " + keep + " (below your " + users.keepPerTab() + ")");
      keep = null;
    }
    Integer days = own.maxAgeDays();
    if (days != null && Duration.ofDays(days).compareTo(users.maxAge()) < 0) {
      ignored.add("retention maxAgeDays " + days + " (below your " + users.maxAge().toDays() + ")");
      days = null;
    }
    return keep == null && days == null ? null : new Retention(keep, days);
  }

  /**
   * Records {@code project} (its real path) as trusted in Waymark's own list beside the user's
   * settings ({@link #trustFile}): the settings file, likely written by hand, is left as it is.
   */
  static void trust(Map<String, String> env, Path project) throws BadSettings {
    read(userFile(env)); // a broken settings file is reported before anything is trusted
    try {
      TrustedProjects.add(trustFile(env), canonical(project));
    } catch (IOException e) {
      throw new BadSettings(e.getMessage());
    }
  }

  /** Waymark's own list of the projects the user trusted, beside their settings (which trusting leaves as they are). */
  static Path trustFile(Map<String, String> env) {
    return userFile(env).resolveSibling("trusted-projects.json");
  }

  private static List<String> trustedHere(Map<String, String> env) throws BadSettings {
    try {
      return TrustedProjects.read(trustFile(env));
    } catch (IOException e) {
      throw new BadSettings(e.getMessage());
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
      return ApprovalMode.parse(approval).ordinal();
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

  /** Each event's hooks: this file's, then {@code later}'s (a later file adds hooks, never replaces them). */
  private Map<String, List<HookSetting>> mergedHooks(Settings later) {
    Map<String, List<HookSetting>> merged = new LinkedHashMap<>();
    hooks.forEach((event, list) -> merged.computeIfAbsent(event, e -> new ArrayList<>()).addAll(list));
    later.hooks().forEach((event, list) -> merged.computeIfAbsent(event, e -> new ArrayList<>()).addAll(list));
    return merged;
  }

  /** Every value a settings file can get wrong, each reported where it stands in the file. */
  private void check(Path file, String text) throws BadSettings {
    Optional<String> badHook = HookSetting.problem(hooks);
    if (badHook.isPresent()) {
      throw new BadSettings(file + ": " + badHook.get() + ".");
    }
    if (approval != null) {
      try {
        ApprovalMode.parse(approval);
      } catch (IllegalArgumentException e) {
        throw bad(file, text, "/approval", "approval \"" + approval + "\" is not a mode: use "
            + ApprovalMode.labels() + ".");
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
          && p.thinkingBudget() < AnthropicChatModel.MIN_THINKING_BUDGET) {
        throw bad(file, text, at + "/thinkingBudget", "provider \"" + p.id() + "\": thinkingBudget must be 0 (off) or at "
            + "least " + AnthropicChatModel.MIN_THINKING_BUDGET + " tokens.");
      }
      if (p.baseUrl() != null && !isHttpUrl(p.baseUrl())) {
        throw bad(file, text, at + "/baseUrl", "provider \"" + p.id() + "\": baseUrl \"" + p.baseUrl()
            + "\" is not an http(s) URL, e.g. http://localhost:11434/v1.");
      }
    }
    for (var price : prices.entrySet()) {
      Price p = price.getValue();
      String at = "/prices/" + price.getKey().replace("~", "~0").replace("/", "~1");
      if (p == null || p.input() == null || p.output() == null || p.input() < 0 || p.output() < 0
          || p.input().isNaN() || p.output().isNaN() || p.input().isInfinite() || p.output().isInfinite()) {
        throw bad(file, text, at, "the price of model \"" + price.getKey() + "\" needs \"input\" and \"output\": dollars "
            + "per million tokens, 0 or more, e.g. {\"input\": 0.4, \"output\": 1.6}.");
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
    for (String kind : List.of("allow", "deny")) {
      List<String> list = kind.equals("allow") ? allow : deny;
      for (int i = 0; i < list.size(); i++) {
        try {
          PermissionRule.parse(list.get(i));
        } catch (IllegalArgumentException | NullPointerException e) {
          throw bad(file, text, "/" + kind + "/" + i, kind + " rule \"" + list.get(i) + "\": " + e.getMessage()
              + " (e.g. \"run_shell(npm test:*)\", \"read_file\", \"mcp__github\").");
        }
      }
    }
    if (sandbox != null) {
      var problem = sandbox.problem();
      if (problem.isPresent()) {
        throw bad(file, text, problem.get().pointer(), problem.get().message());
      }
    }
    if (maxStepsPerTurn != null && maxStepsPerTurn < 1) {
      throw bad(file, text, "/maxStepsPerTurn", "maxStepsPerTurn must be at least 1 (default "
          + SessionSettings.DEFAULT_MAX_STEPS_PER_TURN + ").");
    }
    if (maxAnswerMiB != null && (maxAnswerMiB < 1 || maxAnswerMiB > 4096)) {
      throw bad(file, text, "/maxAnswerMiB", "maxAnswerMiB must be from 1 to 4096 (default 32).");
    }
    checkMcpServers(file, text);
    if (maxParallelSubagents != null && (maxParallelSubagents < 1 || maxParallelSubagents > 64)) {
      throw bad(file, text, "/maxParallelSubagents", "maxParallelSubagents must be from 1 to 64 (default "
          + WorkspaceSubagents.DEFAULT_MAX_PARALLEL + ").");
    }
    if (autoCompactPercent != null && (autoCompactPercent < 0 || autoCompactPercent > 100)) {
      throw bad(file, text, "/autoCompactPercent", "autoCompactPercent must be from 0 (never) to 100 (default "
          + SessionSettings.DEFAULT_COMPACT_PERCENT + ").");
    }
    for (var window : contextWindows.entrySet()) {
      if (window.getValue() == null || window.getValue() < 1024) {
        throw bad(file, text, "/contextWindows/" + window.getKey().replace("~", "~0").replace("/", "~1"),
            "contextWindows: the window of \"" + window.getKey() + "\" must be a number of tokens, at least 1024.");
      }
    }
    for (var binding : keyBindings.entrySet()) {
      try {
        KeyMap.defaults().withOverrides(Map.of(binding.getKey(), binding.getValue()));
      } catch (IllegalArgumentException e) {
        throw bad(file, text, "/keyBindings/" + binding.getKey().replace("~", "~0").replace("/", "~1"), e.getMessage());
      }
    }
  }

  /** Header names whose value is a secret: it must name a variable, never be written here. */
  private static final Pattern SECRET_HEADER = Pattern.compile(
      "(?i).*(authorization|token|key|secret|password|cookie).*");

  private void checkMcpServers(Path file, String text) throws BadSettings {
    for (var entry : mcpServers.entrySet()) {
      String name = entry.getKey();
      McpServerSetting server = entry.getValue();
      String at = "/mcpServers/" + name.replace("~", "~0").replace("/", "~1");
      if (!name.matches("[A-Za-z0-9_-]{1,32}") || name.contains("__")) {
        throw bad(file, text, at, "MCP server name \"" + name + "\": use up to 32 letters, digits, - and _ (no \"__\"); "
            + "its tools are offered as NAME__tool.");
      }
      if (server == null || (server.command() == null) == (server.url() == null)) {
        throw bad(file, text, at, "MCP server \"" + name + "\" needs either \"command\" (a program spoken to over "
            + "stdio) or \"url\" (streamable HTTP).");
      }
      if (server.command() != null && server.command().isBlank()) {
        throw bad(file, text, at + "/command", "MCP server \"" + name + "\": command is empty.");
      }
      if (server.url() != null && !isHttpUrl(server.url())) {
        throw bad(file, text, at + "/url", "MCP server \"" + name + "\": url \"" + server.url()
            + "\" is not an http(s) URL, e.g. http://127.0.0.1:3001/mcp.");
      }
      if (server.url() == null && !server.headers().isEmpty()) {
        throw bad(file, text, at + "/headers", "MCP server \"" + name + "\": headers are for a url server.");
      }
      for (var header : server.headers().entrySet()) {
        if (SECRET_HEADER.matcher(header.getKey()).matches() && !header.getValue().contains("${")) {
          throw bad(file, text, at + "/headers/" + header.getKey(), "MCP server \"" + name + "\": header "
              + header.getKey() + " holds a secret: write the environment variable it is in, e.g. \"Bearer ${GITHUB_TOKEN}\", "
              + "never the token itself.");
        }
      }
      if (server.timeoutSeconds() != null && (server.timeoutSeconds() < 1 || server.timeoutSeconds() > 3600)) {
        throw bad(file, text, at + "/timeoutSeconds", "MCP server \"" + name + "\": timeoutSeconds must be from 1 to 3600.");
      }
    }
  }

  private static boolean isHttpUrl(String text) {
    try {
      URI uri = URI.create(text.trim());
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
    try (JsonParser parser = JSON.getFactory().createParser(text)) {
      for (var token = parser.nextToken(); token != null; token = parser.nextToken()) {
        if (token != JsonToken.FIELD_NAME && !token.isStructEnd()
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
    Map<String, McpServerSetting> servers = new LinkedHashMap<>(mcpServers);
    servers.putAll(later.mcpServers());
    List<String> allowed = new ArrayList<>(allowedTools);
    later.allowedTools().stream().filter(t -> !allowed.contains(t)).forEach(allowed::add);
    return new Settings(new ArrayList<>(byId.values()), or(later.provider(), provider), or(later.model(), model),
        or(later.approval(), approval), keys, r, excluded, trustedProjects,
        later.maxStepsPerTurn() != null ? later.maxStepsPerTurn() : maxStepsPerTurn,
        later.maxAnswerMiB() != null ? later.maxAnswerMiB() : maxAnswerMiB, union(allow, later.allow()),
        union(deny, later.deny()), later.bell() != null ? later.bell() : bell, mergedPrices(later), servers, allowed,
        windows(later), later.autoCompactPercent() != null ? later.autoCompactPercent() : autoCompactPercent,
        sandbox == null ? later.sandbox() : sandbox.overriddenBy(later.sandbox()),
        web == null ? later.web() : web.overriddenBy(later.web()), mergedHooks(later),
        later.notifications() != null ? later.notifications() : notifications,
        later.maxParallelSubagents() != null ? later.maxParallelSubagents() : maxParallelSubagents);
  }

  /** The backend {@code web_search} asks, with its key from {@code env}; none (and why, when one was asked for) otherwise. */
  WebSearch.Result webSearch(Map<String, String> env) {
    if (web == null || web.search() == null) {
      return new WebSearch.Result(Optional.empty(), Optional.empty());
    }
    WebSetting.Search search = web.search();
    return WebSearch.configure(search.provider(), search.url(), search.apiKeyEnv(), env);
  }

  /** What {@code web_fetch} may reach besides public addresses. */
  WebAccess webAccess() {
    return web == null ? WebAccess.DEFAULTS
        : new WebAccess(web.allowHosts(), WebAccess.DEFAULTS.timeout(),
            WebAccess.DEFAULTS.maxRedirects());
  }

  private static List<String> union(List<String> first, List<String> later) {
    List<String> all = new ArrayList<>(first);
    later.stream().filter(r -> !all.contains(r)).forEach(all::add);
    return all;
  }

  /** Whether a desktop notification (or the bell) says a turn ended or an approval waits while the terminal is unfocused (default yes). */
  boolean notifies() {
    return notifications == null || notifications;
  }

  /** Whether the bell rings when a tool call starts waiting for approval (default yes). */
  boolean ringsBell() {
    return bell == null || bell;
  }

  private Map<String, Price> mergedPrices(Settings later) {
    Map<String, Price> merged = new LinkedHashMap<>(prices);
    merged.putAll(later.prices());
    return merged;
  }

  private Map<String, Integer> windows(Settings later) {
    Map<String, Integer> merged = new LinkedHashMap<>(contextWindows);
    merged.putAll(later.contextWindows());
    return merged;
  }

  /** The window of {@code model} in tokens (settings first, then the known models), 0 when unknown. */
  long contextWindow(String model) {
    return ContextWindows.of(model, contextWindows).orElse(0);
  }

  /** How many subagents of one turn run at once (the others wait for a place). */
  int parallelSubagents() {
    return maxParallelSubagents != null ? maxParallelSubagents
        : WorkspaceSubagents.DEFAULT_MAX_PARALLEL;
  }

  /** How full the window may get before a prompt compacts the conversation first, in percent (0: never). */
  int compactPercent() {
    return autoCompactPercent != null ? autoCompactPercent : SessionSettings.DEFAULT_COMPACT_PERCENT;
  }

  /** How a tab of this run works: the model, approvals, limits and its context window. */
  SessionSettings session(String model, ApprovalMode approval,
      boolean interactive) {
    return session(model, approval, interactive, (String) null);
  }

  /**
   * As {@link #session(String, ApprovalMode, boolean)}, the user's own instruction files
   * ({@code AGENTS.md} beside the settings, {@code ~/.claude/CLAUDE.md}) ahead of the project's.
   */
  SessionSettings session(String model, ApprovalMode approval, boolean interactive, Map<String, String> env) {
    String user = InstructionFiles.userBlocks(userFile(env).getParent(),
        Path.of(env.getOrDefault("HOME", System.getProperty("user.home", "/"))));
    return session(model, approval, interactive, user.isEmpty() ? null : SessionSettings.DEFAULT_PROMPT + "\n\n" + user);
  }

  private SessionSettings session(String model, ApprovalMode approval, boolean interactive, String basePrompt) {
    return new SessionSettings(model, approval, interactive, basePrompt, stepsPerTurn(),
        contextWindow(model), compactPercent(), contextWindows);
  }

  /**
   * The sandbox shell commands should run in: Waymark's data directory hidden, its config
   * directory read-only, key files named by providers hidden; {@code ~/} is the user's home.
   */
  SandboxPolicy sandboxPolicy(WaymarkHome home, Map<String, String> env) {
    return sandboxPolicy(home, env, Path.of(System.getProperty("user.home")));
  }

  /** The sandbox commands run in under these settings: {@code bwrap} looked for on {@code env}'s {@code PATH}. */
  ShellSandbox sandbox(WaymarkHome home, Map<String, String> env) {
    return ShellSandbox.detect(sandboxPolicy(home, env), env.getOrDefault("PATH", System.getenv("PATH")));
  }

  /** {@link #sandboxPolicy(dev.waymark.core.WaymarkHome, Map)} with {@code userHome} as the user's home directory. */
  SandboxPolicy sandboxPolicy(WaymarkHome home, Map<String, String> env,
      Path userHome) {
    String variable = env.get("HOME");
    Optional<Path> commandsHome = variable != null && variable.startsWith("/") ? Optional.of(Path.of(variable)) : Optional.empty();
    return (sandbox == null ? SandboxSetting.NONE : sandbox).policy(home, userFile(env).getParent(),
        providers.stream().map(ProviderSetting::apiKeyFile).filter(Objects::nonNull).toList(), userHome,
        commandsHome);
  }

  RetentionPolicy retentionPolicy() {
    var d = RetentionPolicy.DEFAULT;
    if (retention == null) {
      return d;
    }
    return new RetentionPolicy(
        retention.keepPerTab() != null ? retention.keepPerTab() : d.keepPerTab(),
        retention.maxAgeDays() != null ? Duration.ofDays(retention.maxAgeDays()) : d.maxAge());
  }

  /** How many tool calls one turn may run. */
  int stepsPerTurn() {
    return maxStepsPerTurn != null ? maxStepsPerTurn : SessionSettings.DEFAULT_MAX_STEPS_PER_TURN;
  }

  /** How many bytes of one model answer are read at most. */
  long answerBytes() {
    return maxAnswerMiB != null ? (long) maxAnswerMiB << 20 : HttpOptions.defaults().maxAnswerBytes();
  }

  /** The tools' limits; shell commands do not get the key variable of any provider named here. */
  ToolSettings toolSettings() {
    return ToolSettings.DEFAULTS.withholding(
        providers.stream().map(ProviderSetting::apiKeyEnv).filter(Objects::nonNull).toList());
  }

  private static String or(String a, String b) {
    return a != null ? a : b;
  }
}
