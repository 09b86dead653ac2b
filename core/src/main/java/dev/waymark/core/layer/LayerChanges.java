package dev.waymark.core.layer;

import java.util.List;

/**
 * What an upper directory holds: the changes, and the paths it holds that no project can take
 * (a FIFO, socket or device the command made), which are left out and said.
 */
public record LayerChanges(List<LayerChange> changes, List<String> unsupported) {
  public LayerChanges {
    changes = List.copyOf(changes);
    unsupported = List.copyOf(unsupported);
  }

  public boolean isEmpty() {
    return changes.isEmpty() && unsupported.isEmpty();
  }
}
