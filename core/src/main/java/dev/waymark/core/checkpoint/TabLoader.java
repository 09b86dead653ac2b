package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.TempNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a tab's tree back: from its tags alone ({@link #load}), or from a session's snapshot
 * checked against the tags ({@link #restore}); a tab held to act on also gets what its shell
 * commands left (layers, journals) recorded and a cut-short write's temporary file removed.
 * The caller holds the tab's lock.
 */
final class TabLoader {
  private static final Logger LOG = LoggerFactory.getLogger(TabLoader.class);

  private final StoreParts parts;

  TabLoader(StoreParts parts) {
    this.parts = parts;
  }

  CheckpointTree load(String tabId) {
    String prefix = TagNames.tabPrefix(tabId);
    List<GraphLoader.StoredCheckpoint> stored = new ArrayList<>();
    Map<Integer, Set<String>> saves = new HashMap<>();
    try {
      for (Ref ref : parts.repo().refs(prefix)) {
        String rest = ref.getName().substring(prefix.length());
        if (rest.matches("\\d+")) {
          stored.add(readCheckpoint(ref.getName(), ref.getObjectId()));
        } else if (rest.startsWith("saved/")) {
          CheckpointManifest manifest = manifest(ref.getObjectId(), ref.getName());
          if (!manifest.tab().equals(tabId)) {
            throw new CheckpointException(CheckpointException.Kind.LOST, ref.getName() + " holds a save of tab " + manifest.tab() + ", not of " + tabId
                + ": the shadow repository " + parts.shadowDirectory() + " was changed by hand or is damaged.");
          }
          saves.computeIfAbsent(manifest.checkpoint(), k -> new TreeSet<>()).add(rest.substring("saved/".length()));
        }
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read the checkpoints of tab " + tabId + ": " + e.getMessage(), e);
    }
    if (stored.isEmpty() && saves.isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "This project has no checkpoints of tab " + tabId + ".");
    }
    CheckpointTree tree = new CheckpointTree(parts, tabId, GraphLoader.rebuild(stored, saves, parts.clock().instant()), false);
    List<String> notes = parts.captures().recover(tree.history());
    for (String note : notes) {
      LOG.warn("tab {}: {}", tabId, note);
    }
    return tree;
  }

  /** The manifest of a checkpoint's or a save's commit, read strictly (see {@link CheckpointManifest}). */
  private CheckpointManifest manifest(ObjectId commit, String ref) throws IOException {
    byte[] bytes = parts.repo().readAt(commit, "waymark.json");
    if (bytes == null) {
      throw new CheckpointException(CheckpointException.Kind.LOST, ref + " has no waymark.json manifest");
    }
    return CheckpointManifest.parse(bytes, ref);
  }

  private GraphLoader.StoredCheckpoint readCheckpoint(String ref, ObjectId commit) throws IOException {
    CheckpointManifest manifest = manifest(commit, ref);
    // a tag is trusted for its number only if its manifest says the same: else the tree would take one checkpoint for another
    if (!ref.equals(TagNames.tabPrefix(manifest.tab()) + manifest.checkpoint())) {
      throw new CheckpointException(CheckpointException.Kind.LOST, ref + " holds the manifest of " + manifest.tab() + " #" + manifest.checkpoint()
          + ", not of its own checkpoint: the shadow repository " + parts.shadowDirectory() + " was changed by hand or is "
          + "damaged. Point the tag back at its own commit, or delete it (git --git-dir=... tag -d).");
    }
    return GraphLoader.StoredCheckpoint.of(manifest, commit, ref);
  }

  RestoredTab restore(TreeSnapshot snapshot, boolean claim) {
    Map<Integer, Checkpoint> known = new HashMap<>();
    for (Checkpoint cp : snapshot.checkpoints()) {
      known.put(cp.number(), cp);
    }
    List<GraphLoader.StoredCheckpoint> newer = new ArrayList<>();
    String prefix = TagNames.tabPrefix(snapshot.tabId());
    try {
      for (Ref ref : parts.repo().refs(prefix)) {
        String rest = ref.getName().substring(prefix.length());
        if (!rest.matches("\\d{1,9}")) {
          continue;
        }
        Checkpoint cp = known.get(Integer.parseInt(rest));
        boolean unknown = cp == null;
        boolean movedOn = cp != null && cp.status() == CheckpointStatus.RUNNING
            && !ref.getObjectId().equals(cp.commit().orElse(null));
        if (unknown || movedOn) {
          newer.add(readCheckpoint(ref.getName(), ref.getObjectId()));
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not read the tags of tab {}; the session is loaded as saved", snapshot.tabId(), e);
      newer.clear();
    }
    Set<Integer> adopted = new TreeSet<>();
    newer.forEach(n -> adopted.add(n.number()));
    List<String> recreated = new ArrayList<>();
    List<Integer> lost = new ArrayList<>();
    for (Checkpoint cp : snapshot.checkpoints()) {
      if (cp.commit().isEmpty() || adopted.contains(cp.number())) {
        continue;
      }
      ObjectId commit = cp.commit().get();
      if (!parts.repo().has(commit)) {
        lost.add(cp.number());
        continue;
      }
      if (cp.tag().isPresent() && !commit.equals(parts.repo().resolve(cp.tag().get()))) {
        parts.repo().setRef(cp.tag().get(), commit);
        recreated.add(cp.tag().get());
      }
    }
    for (var save : snapshot.saves().entrySet()) {
      TreeSaves.checkSaveName(save.getKey()); // a session file's name, read into a ref
      String ref = TagNames.tabPrefix(snapshot.tabId()) + "saved/" + save.getKey();
      if (parts.repo().has(save.getValue()) && !save.getValue().equals(parts.repo().resolve(ref))) {
        parts.repo().setRef(ref, save.getValue());
        recreated.add(ref);
      }
    }
    newer.sort(Comparator.comparingInt(GraphLoader.StoredCheckpoint::number));
    GraphLoader.Loaded loaded = GraphLoader.restore(snapshot, Set.copyOf(lost), newer, parts.tabMoves().last(snapshot.tabId()),
        parts.clock().instant());
    CheckpointTree tree = new CheckpointTree(parts, snapshot.tabId(), loaded.graph(), loaded.reconciled());
    List<String> shellRecovered = List.of();
    if (claim) {
      removeWriteLeftovers(tree); // only the tab's holder: another may be writing one now
      // likewise: they record into the tab's checkpoints; a layer left by a killed Waymark first
      shellRecovered = List.copyOf(parts.captures().recover(tree.history()));
    }
    return new RestoredTab(tree, recreated, lost, List.copyOf(adopted), shellRecovered);
  }

  /**
   * Deletes the temporary file a {@code write_file} killed before its rename left beside a path
   * the tab recorded (each change is recorded before its file is written, so every such path is
   * in the tree). One {@code lstat} per recorded path.
   */
  private void removeWriteLeftovers(CheckpointTree tree) {
    Set<String> paths = new TreeSet<>();
    for (Checkpoint cp : tree.checkpoints()) {
      cp.changes().forEach(change -> paths.add(change.path()));
    }
    for (String path : paths) {
      Path target = parts.workTree().resolve(path);
      Path temp = TempNames.beside(target, TempNames.WRITE_SUFFIX);
      try {
        parts.workTree().refuseLinkedParent(path); // never delete through a link
        if (Files.isRegularFile(temp, LinkOption.NOFOLLOW_LINKS)) {
          Files.delete(temp);
          LOG.info("removed {}, left by a write that was cut short", temp);
        }
      } catch (IOException | RuntimeException e) {
        LOG.warn("could not remove {}, left by a write that was cut short", temp, e);
      }
    }
  }
}
