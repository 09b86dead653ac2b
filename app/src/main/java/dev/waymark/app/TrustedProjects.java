package dev.waymark.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The projects the user trusted from Waymark, kept in {@code trusted-projects.json} beside the
 * user's {@code settings.json}: trusting writes only this file, so the user's hand-written settings
 * are never rewritten. Projects listed under {@code trustedProjects} in the settings are trusted too.
 */
final class TrustedProjects {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TrustedProjects() {}

  static Path file(Map<String, String> env) {
    return Settings.userFile(env).resolveSibling("trusted-projects.json");
  }

  /** The real paths listed; none when the file does not exist. */
  static List<String> read(Map<String, String> env) throws Settings.BadSettings {
    Path file = file(env);
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      List<String> paths = JSON.readValue(Files.readString(file), new TypeReference<List<String>>() {});
      if (paths == null || paths.contains(null)) {
        throw new Settings.BadSettings(file + ": must be a list of project paths, e.g. [\"/home/me/project\"].");
      }
      return List.copyOf(paths);
    } catch (JsonProcessingException e) {
      throw new Settings.BadSettings(file + ": must be a list of project paths, e.g. [\"/home/me/project\"] ("
          + e.getOriginalMessage() + ").");
    } catch (IOException e) {
      throw new Settings.BadSettings(file + ": cannot be read: " + e.getMessage());
    }
  }

  /** Adds {@code path} to the list, unless it is there already; a broken list is reported, never overwritten. */
  static void add(Map<String, String> env, String path) throws Settings.BadSettings {
    List<String> paths = new ArrayList<>(read(env));
    if (paths.contains(path)) {
      return;
    }
    paths.add(path);
    Path file = file(env);
    try {
      Files.createDirectories(file.getParent());
      Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temporary, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(paths) + "\n");
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new Settings.BadSettings(file + ": cannot record the trusted project: " + e.getMessage());
    }
  }
}
