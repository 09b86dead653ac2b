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

/**
 * The projects the user trusted from Waymark, a JSON list of real paths kept beside the user's
 * {@code settings.json} ({@code Settings.trustFile}): trusting writes only this file, so the
 * user's hand-written settings are never rewritten. Each failure is an {@link IOException} whose
 * message names the file and says what is wrong, in one line.
 */
final class TrustedProjects {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TrustedProjects() {}

  /** The real paths {@code file} lists; none when it does not exist. */
  static List<String> read(Path file) throws IOException {
    if (!Files.exists(file)) {
      return List.of();
    }
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new IOException(file + ": cannot be read: " + e.getMessage(), e);
    }
    try {
      List<String> paths = JSON.readValue(text, new TypeReference<List<String>>() {});
      if (paths == null || paths.contains(null)) {
        throw new IOException(file + ": must be a list of project paths, e.g. [\"/home/me/project\"].");
      }
      return List.copyOf(paths);
    } catch (JsonProcessingException e) {
      throw new IOException(file + ": must be a list of project paths, e.g. [\"/home/me/project\"] ("
          + e.getOriginalMessage() + ").", e);
    }
  }

  /** Adds {@code path} to {@code file}'s list, unless it is there already; a broken list is reported, never overwritten. */
  static void add(Path file, String path) throws IOException {
    List<String> paths = new ArrayList<>(read(file));
    if (paths.contains(path)) {
      return;
    }
    paths.add(path);
    try {
      Files.createDirectories(file.getParent());
      Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(temporary, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(paths) + "\n");
      Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new IOException(file + ": cannot record the trusted project: " + e.getMessage(), e);
    }
  }
}
