package dev.waymark.app;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The user's settings file, {@code $XDG_CONFIG_HOME/waymark/settings.json} (default
 * {@code ~/.config/waymark/settings.json}). For now it holds key bindings:
 * {@code {"keyBindings": {"view-back": ["alt+left"], "view-forward": []}}}.
 */
record UserSettings(Map<String, List<String>> keyBindings) {
  static final UserSettings NONE = new UserSettings(Map.of());
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  /** A settings file that cannot be used: the message names its path, line and column. */
  static final class BadSettings extends Exception {
    BadSettings(String message) {
      super(message);
    }
  }

  static Path defaultFile(Map<String, String> env) {
    String xdg = env.get("XDG_CONFIG_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".config");
    return base.resolve("waymark").resolve("settings.json");
  }

  /** Reads {@code file}; a missing file means no settings. */
  static UserSettings read(Path file) throws BadSettings {
    if (!Files.exists(file)) {
      return NONE;
    }
    JsonNode root;
    try {
      root = JSON.readTree(Files.readString(file));
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
      throw new BadSettings(file + where + ": not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new BadSettings(file + ": cannot be read: " + e.getMessage());
    }
    if (root == null || !root.isObject()) {
      throw new BadSettings(file + ": must hold a JSON object.");
    }
    Map<String, List<String>> bindings = new LinkedHashMap<>();
    JsonNode keys = root.path("keyBindings");
    if (!keys.isMissingNode()) {
      if (!keys.isObject()) {
        throw new BadSettings(file + ": \"keyBindings\" must be an object of action names to lists of keys.");
      }
      for (var entry : (Iterable<Map.Entry<String, JsonNode>>) keys::fields) {
        JsonNode value = entry.getValue();
        List<String> chords = new ArrayList<>();
        if (value.isTextual()) {
          chords.add(value.asText());
        } else if (value.isArray()) {
          for (JsonNode chord : value) {
            if (!chord.isTextual()) {
              throw new BadSettings(file + ": keyBindings." + entry.getKey() + " must list keys as strings.");
            }
            chords.add(chord.asText());
          }
        } else if (!value.isNull()) {
          throw new BadSettings(file + ": keyBindings." + entry.getKey() + " must be a key, a list of keys, or [] to unbind.");
        }
        bindings.put(entry.getKey(), List.copyOf(chords));
      }
    }
    return new UserSettings(bindings);
  }
}
