package dev.waymark.core.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.CheckpointGraph.Node;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Keeps one tab's checkpoints in the shadow repository: a commit per checkpoint with changes
 * ({@code pre/} and {@code post/} trees and a {@link CheckpointManifest}), tagged
 * {@code refs/tags/waymark/<tab>/<n>}; saves under {@code saved/<name>}; and the tags retention
 * drops. Every write goes through the repository's one writer thread and waits for it; the caller
 * holds no lock meanwhile (the tree is confined to its tab's thread).
 */
final class CheckpointWriter {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final StoreParts parts;
  private final String tabId;

  CheckpointWriter(StoreParts parts, String tabId) {
    this.parts = parts;
    this.tabId = tabId;
  }

  /** Commits what {@code node} holds, with {@code status}, and moves its tag to the commit. */
  void commit(Node node, CheckpointStatus status) {
    List<ShadowRepository.TreeEntry> entries = new ArrayList<>();
    for (FileChange change : node.changes.values()) {
      if (change.before().exists()) {
        entries.add(new ShadowRepository.TreeEntry("pre/" + change.path(), change.before()));
      }
      if (change.after().exists()) {
        entries.add(new ShadowRepository.TreeEntry("post/" + change.path(), change.after()));
      }
    }
    if (node.land != null) { // the view a land came from stays reachable, so gc keeps it for the land's undo
      for (LandRecord.ViewEntry entry : node.land.view()) {
        if (entry.inView().exists()) {
          entries.add(new ShadowRepository.TreeEntry("view/" + entry.path(), entry.inView()));
        }
        if (entry.base().filter(FileVersion::exists).isPresent()) {
          entries.add(new ShadowRepository.TreeEntry("base/" + entry.path(), entry.base().get()));
        }
      }
    }
    entries = apart(entries);
    CheckpointManifest manifest = CheckpointManifest.ofCheckpoint(tabId, node.number, parentNumber(node),
        CheckpointGraph.pathOf(node), status, node.created, new ArrayList<>(node.changes.values()), node.children,
        Optional.ofNullable(node.land));
    String tag = TagNames.tabPrefix(tabId) + node.number;
    node.commit = parts.repo().commitAndTag(entries, manifest.toBytes(), parentCommits(node.parent),
        "waymark " + tabId + " #" + node.number + ": " + Counted.of(node.changes.size(), "file")
            + (status == CheckpointStatus.RUNNING ? " so far" : "") + "\n",
        node.created, tag, node.tag == null ? null : node.commit);
    node.tag = tag;
  }

  /**
   * {@code entries} with each one that a git tree cannot hold beside the others set apart: a file
   * or link at a path that is also a directory above another entry of the same tree (a layer that
   * deleted {@code conf/app/settings.ini} through a link {@code conf} another process made records
   * both). Such an entry goes to {@code pre@N/} (or {@code post@N/}), N its path's depth: no two
   * paths of one depth lie one above the other. The manifest holds every version as it is; the
   * trees keep the blobs reachable and readable with {@code git show}.
   */
  static List<ShadowRepository.TreeEntry> apart(List<ShadowRepository.TreeEntry> entries) {
    Set<String> directories = new HashSet<>();
    for (ShadowRepository.TreeEntry entry : entries) {
      String path = entry.path();
      for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
        directories.add(path.substring(0, slash));
      }
    }
    List<ShadowRepository.TreeEntry> placed = new ArrayList<>(entries.size());
    for (ShadowRepository.TreeEntry entry : entries) {
      if (!directories.contains(entry.path())) {
        placed.add(entry);
        continue;
      }
      int slash = entry.path().indexOf('/'); // after pre or post
      String inside = entry.path().substring(slash + 1);
      long depth = inside.chars().filter(c -> c == '/').count() + 1;
      placed.add(new ShadowRepository.TreeEntry(entry.path().substring(0, slash) + "@" + depth + "/" + inside,
          entry.version()));
    }
    return placed;
  }

  /** Deletes the tag of a running checkpoint whose changes folded back to nothing. */
  void dropTag(Node node) {
    if (node.tag != null) {
      parts.repo().deleteRefs(List.of(node.tag));
      node.tag = null;
      node.commit = null;
    }
  }

  /**
   * Tags {@code live} under {@code name}: a commit whose {@code post/} tree holds {@code files}
   * (every file the tab tracks, as it is at live). Saves are never pruned.
   */
  void save(Node live, String name, Map<String, FileVersion> files, boolean move) {
    String tag = saveTag(name);
    ObjectId existing = parts.repo().resolve(tag);
    if (existing != null && !move) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "This tab already has a save named " + name + ".");
    }
    List<ShadowRepository.TreeEntry> entries = new ArrayList<>();
    for (var entry : files.entrySet()) {
      if (entry.getValue().exists()) {
        entries.add(new ShadowRepository.TreeEntry("post/" + entry.getKey(), entry.getValue()));
      }
    }
    entries = apart(entries);
    CheckpointManifest manifest = CheckpointManifest.ofSave(tabId, live.number, parentNumber(live),
        CheckpointGraph.pathOf(live), live.status, live.created, name, files);
    parts.repo().commitAndTag(entries, manifest.toBytes(), parentCommits(live),
        "waymark " + tabId + " save " + name + " at #" + live.number + "\n", parts.clock().instant(), tag, existing);
  }

  /** Deletes the tag of the save {@code name}. */
  void deleteSave(String name) {
    parts.repo().deleteRefs(List.of(saveTag(name)));
  }

  /** The commit of the save {@code name}, if its tag is there. */
  ObjectId saveCommit(String name) {
    return parts.repo().resolve(saveTag(name));
  }

  /** Deletes the tags of {@code nodes} (retention); their commits stay while a later tag reaches them. */
  void untag(List<Node> nodes) {
    List<String> doomed = new ArrayList<>();
    for (Node n : nodes) {
      doomed.add(n.tag);
    }
    if (doomed.isEmpty()) {
      return;
    }
    parts.repo().deleteRefs(doomed);
    Set<String> gone = new HashSet<>(doomed);
    for (Node n : nodes) {
      if (gone.contains(n.tag)) {
        n.tag = null;
      }
    }
  }

  String saveTag(String name) {
    return TagNames.tabPrefix(tabId) + "saved/" + name;
  }

  private static int parentNumber(Node node) {
    return node.parent == null ? -1 : node.parent.number;
  }

  /** The commit of the nearest ancestor that has one: the parent of a new commit. */
  private static List<ObjectId> parentCommits(Node from) {
    for (Node n = from; n != null; n = n.parent) {
      if (n.commit != null) {
        return List.of(n.commit);
      }
    }
    return List.of();
  }

  /**
   * Commits what a forced restore of {@code #restoring} is about to overwrite (path → the version on
   * disk, blobs stored) under a new {@code rescued/<live>-<time>} tag; returns the tag.
   */
  String rescue(Map<String, FileVersion> rescued, int liveNumber, int restoring) {
    return tagRescued(rescued, "disk/", liveNumber, manifest -> manifest.put("restoring", restoring),
        "files overwritten by a forced restore of #" + restoring);
  }

  /**
   * Keeps a command's versions of the paths it changed but could not apply (they changed meanwhile;
   * path → version, blobs stored, {@code ABSENT}: it deleted the path) under a new
   * {@code rescued/<number>-<time>} tag; returns the tag.
   */
  String rescueCommand(Map<String, FileVersion> versions, int number) {
    return tagRescued(versions, "command/", number, manifest -> {}, "the command of #" + number
        + " changed files changed meanwhile");
  }

  /** Commits {@code versions} under {@code folder} with a manifest naming them, tagged {@code rescued/<number>-<time>}. */
  private String tagRescued(Map<String, FileVersion> versions, String folder, int number,
      Consumer<ObjectNode> moreManifest, String why) {
    List<ShadowRepository.TreeEntry> entries = new ArrayList<>();
    ObjectNode manifest = JSON.createObjectNode();
    manifest.put("format", 1);
    manifest.put("tab", tabId);
    manifest.put("rescuedAt", number);
    moreManifest.accept(manifest);
    var files = manifest.putArray("files");
    for (var entry : versions.entrySet()) {
      files.add(entry.getKey());
      if (entry.getValue().exists()) {
        entries.add(new ShadowRepository.TreeEntry(folder + entry.getKey(), entry.getValue()));
      }
    }
    var now = parts.clock().instant();
    String base = TagNames.tabPrefix(tabId) + "rescued/" + rescueName(number, now);
    String tag = base;
    for (int i = 1; parts.repo().resolve(tag) != null; i++) {
      tag = base + "-" + i;
    }
    parts.repo().commitAndTag(entries, CheckpointManifest.bytes(manifest), List.of(),
        "waymark " + tabId + ": " + why + "\n", now, tag);
    return tag;
  }

  /**
   * A rescued tag's name: the checkpoint that was live and when, readable and valid in a ref
   * ({@code 4-2026-11-26T19.02.11Z}).
   */
  static String rescueName(int liveNumber, Instant at) {
    return liveNumber + "-" + DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH.mm.ss'Z'")
        .withZone(ZoneOffset.UTC).format(at);
  }
}
