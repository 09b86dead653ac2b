package dev.waymark.core.layer;

import java.nio.file.Path;
import java.util.List;

/**
 * What an upper directory holds: the changes, the paths it holds that no project can take (a
 * FIFO, socket or device the command made), which are left out and said, and the entries whose
 * names are not UTF-8 ({@code unnamed}), which Java can move by their raw paths but not name.
 */
public record LayerChanges(List<LayerChange> changes, List<String> unsupported, List<Unnamed> unnamed) {
  public LayerChanges {
    changes = List.copyOf(changes);
    unsupported = List.copyOf(unsupported);
    unnamed = List.copyOf(unnamed);
  }

  public LayerChanges(List<LayerChange> changes, List<String> unsupported) {
    this(changes, unsupported, List.of());
  }

  /**
   * An upper entry whose name is not UTF-8: {@code shown} is its path as a message can show it (a
   * stand-in character for each byte that is not UTF-8), {@code source} and {@code target} its raw
   * paths in the upper directory and the project, {@code directory} the project-relative path of
   * the directory it is in (UTF-8: an entry below one that is not is part of that one), by which it
   * is reached without a link.
   */
  public record Unnamed(String shown, Path source, Path target, String directory) {}

  public boolean isEmpty() {
    return changes.isEmpty() && unsupported.isEmpty() && unnamed.isEmpty();
  }
}
