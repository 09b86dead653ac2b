package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.TabHistory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link Turn} asks of the tab's tree it belongs to. {@link CheckpointTree} is the only
 * one; the turn names this, not the tree, so that the tree that begins turns and the turn that
 * calls back into it make no ring. An abstract class, not an interface, so that these methods stay
 * package-private on the public tree.
 */
abstract class TurnHost {
  abstract String tabId();

  /** The store's parts as the tab uses them now (an isolated tab's change when it lands). */
  abstract StoreParts parts();

  abstract TabHistory history();

  abstract TurnRecorder recorder();

  abstract Optional<Path> viewDirectory();

  abstract Path projectRoot();

  abstract FileState readProjectFile(String path) throws IOException;

  /** See {@link CheckpointWriter#rescueCommand}. */
  abstract String rescueCommand(Map<String, FileVersion> versions, int number);

  /** Ends the turn whose checkpoint is {@code node} as if never begun, when it is the last and holds no change; returns whether it did. */
  abstract boolean withdraw(Node node);

  /** Ends the turn whose checkpoint is {@code node}: records it and lets retention untag. */
  abstract Checkpoint finish(Node node, CheckpointStatus status);
}
