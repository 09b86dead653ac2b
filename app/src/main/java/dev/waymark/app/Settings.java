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
    List<String> exclusions) {

  static final Settings NONE = new Settings(List.of(), null, null, null, Map.of(), null, List.of());
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  Settings {
    providers = providers == null ? List.of() : List.copyOf(providers);
    keyBindings = keyBindings == null ? Map.of() : Map.copyOf(keyBindings);
    exclusions = exclusions == null ? List.of() : List.copyOf(exclusions);
  }

  /** A model provider: {@code type} openai (any compatible server), anthropic or scripted. */
  record ProviderSetting(String id, String type, String baseUrl, String apiKeyEnv, String apiKeyFile, List<String> models,
      String script) {
    ProviderSetting {
      models = models == null ? List.of() : List.copyOf(models);
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

  /** The user's settings, overridden by the project's. */
  static Settings load(Map<String, String> env, Path project) throws BadSettings {
    return read(userFile(env)).overriddenBy(read(projectFile(project)));
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
      s.check(file);
      return s;
    } catch (UnrecognizedPropertyException e) {
      throw new BadSettings(file + where(e) + ": unknown setting \"" + e.getPropertyName() + "\" (known: "
          + String.join(", ", e.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList()) + ").");
    } catch (JsonProcessingException e) {
      throw new BadSettings(file + where(e) + ": " + e.getOriginalMessage().lines().findFirst().orElse("not valid JSON"));
    }
  }

  private void check(Path file) throws BadSettings {
    for (ProviderSetting p : providers) {
      if (p.id() == null || p.id().isBlank()) {
        throw new BadSettings(file + ": every provider needs an \"id\".");
      }
      if (p.type() == null || !List.of("openai", "anthropic", "scripted").contains(p.type())) {
        throw new BadSettings(file + ": provider \"" + p.id() + "\" needs \"type\": openai, anthropic or scripted.");
      }
    }
    if (retention != null && ((retention.keepPerTab() != null && retention.keepPerTab() < 1)
        || (retention.maxAgeDays() != null && retention.maxAgeDays() < 1))) {
      throw new BadSettings(file + ": retention.keepPerTab and retention.maxAgeDays must be at least 1.");
    }
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
        or(later.approval(), approval), keys, r, excluded);
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

  private static String or(String a, String b) {
    return a != null ? a : b;
  }
}
