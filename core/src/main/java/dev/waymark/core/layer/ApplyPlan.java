package dev.waymark.core.layer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The redo journal of an apply: what it decided to do, written once every change was told to the
 * recorder and before the first is made ({@code applying.json} in the layer's directory). A kill
 * after that leaves the project part way: files already moved out of the upper directory are in
 * the project, where reading the upper again would take them for the project's own (below a
 * directory the command emptied, as entries the command deleted). So a layer with a plan is never
 * read again: {@link #finish} makes what the plan still holds, and the apply ends as if it had
 * never been stopped. A layer without one had nothing made yet, and is applied from scratch.
 *
 * <p>What is done is read from the disk, never from a log written per step: a file or link is
 * made once its source (the upper entry, or the merge beside it) is gone; a deletion whose path
 * then holds what the command made there is done; deletions and directories are made again
 * harmlessly (nothing there, or a directory there already).
 */
public final class ApplyPlan {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String FILE = "applying.json";

  private final Layer layer;
  private final List<LayerChange> changes;
  /** By path, the file beside the layer holding the three-way merge to move there (instead of the upper entry). */
  private final Map<String, Path> merged;
  private final List<LayerApply.Clash> clashes;

  private ApplyPlan(Layer layer, List<LayerChange> changes, Map<String, Path> merged, List<LayerApply.Clash> clashes) {
    this.layer = layer;
    this.changes = List.copyOf(changes);
    this.merged = Map.copyOf(merged);
    this.clashes = List.copyOf(clashes);
  }

  /** Journals what an apply of {@code layer} is about to do: {@code changes}, with {@code merged} files and {@code clashes} left out. */
  static void write(Layer layer, List<LayerChange> changes, Map<String, Path> merged, List<LayerApply.Clash> clashes)
      throws IOException {
    ObjectNode plan = JSON.createObjectNode();
    ArrayNode list = plan.putArray("changes");
    for (LayerChange change : changes) {
      list.addObject().put("path", change.path()).put("kind", change.kind().name()).put("mode", change.mode());
    }
    ObjectNode mergedNode = plan.putObject("merged");
    merged.forEach((path, file) -> mergedNode.put(path, layer.directory().relativize(file).toString()));
    ArrayNode clashList = plan.putArray("clashes");
    for (LayerApply.Clash clash : clashes) {
      clashList.addObject().put("path", clash.path()).put("reason", clash.reason())
          .put("commandVersion", clash.commandVersion() == null ? null
              : layer.directory().relativize(clash.commandVersion()).toString());
    }
    Path temp = layer.directory().resolve(FILE + ".tmp");
    Files.write(temp, JSON.writeValueAsBytes(plan));
    Files.move(temp, layer.directory().resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The plan of an apply of {@code layer} a kill interrupted; null when none began to change the project. */
  public static ApplyPlan read(Layer layer) throws IOException {
    JsonNode plan;
    try {
      plan = JSON.readTree(Files.readAllBytes(layer.directory().resolve(FILE)));
    } catch (NoSuchFileException none) {
      return null;
    }
    List<LayerChange> changes = new ArrayList<>();
    for (JsonNode change : plan.path("changes")) {
      String path = change.path("path").asText();
      LayerChange.Kind kind = LayerChange.Kind.valueOf(change.path("kind").asText());
      changes.add(new LayerChange(path, kind, kind == LayerChange.Kind.DELETED ? null : layer.upper().resolve(path),
          change.path("mode").asInt()));
    }
    Map<String, Path> merged = new LinkedHashMap<>();
    plan.path("merged").fields().forEachRemaining(e -> merged.put(e.getKey(), layer.directory().resolve(e.getValue().asText())));
    List<LayerApply.Clash> clashes = new ArrayList<>();
    for (JsonNode clash : plan.path("clashes")) {
      JsonNode version = clash.path("commandVersion");
      clashes.add(new LayerApply.Clash(clash.path("path").asText(),
          version.isNull() || version.isMissingNode() ? null : layer.directory().resolve(version.asText()),
          clash.path("reason").asText()));
    }
    return new ApplyPlan(layer, changes, merged, clashes);
  }

  /** What the interrupted apply had decided not to make: the project's version kept, the command's in the layer. */
  public List<LayerApply.Clash> clashes() {
    return clashes;
  }

  /** Every path the plan changes or clashes on. */
  public Set<String> paths() {
    Set<String> paths = new HashSet<>();
    changes.forEach(c -> paths.add(c.path()));
    clashes.forEach(c -> paths.add(c.path()));
    return paths;
  }

  /**
   * Makes what the plan still holds, through {@link LayerApply} (which journals it anew): the
   * merges not yet moved, then the changes not yet made. Nothing is told to {@code recorder} that
   * the plan already told; a path someone changed since the kill is a clash of the result.
   */
  public LayerApply.Result finish(LayerApply.Merge merge, LayerApply.Recorder recorder) throws IOException {
    List<String> movedMerges = new ArrayList<>();
    try (Beneath dirs = new Beneath(layer.project())) { // reached as the apply reaches it: through no link
      for (Map.Entry<String, Path> entry : merged.entrySet()) {
        if (exists(entry.getValue())) {
          Optional<Path> target = dirs.entry(entry.getKey());
          if (target.isPresent()) {
            LayerFiles.moveInto(entry.getValue(), target.get());
            movedMerges.add(entry.getKey());
          }
        }
        Files.deleteIfExists(layer.upper().resolve(entry.getKey())); // the command's own version is in the merge
      }
    }
    LayerApply.Result rest = LayerApply.apply(layer, remaining(), ApplyBases.UNKNOWN, merge, recorder,
        new LayerApply.SoFar(), false);
    List<String> applied = new ArrayList<>(movedMerges);
    applied.addAll(rest.applied());
    return new LayerApply.Result(applied, rest.merged(), rest.clashes());
  }

  /** The plan's changes not made yet (and not clashes): each made as if the apply went on. */
  List<LayerChange> remaining() throws IOException {
    Set<String> clashed = new HashSet<>();
    clashes.forEach(c -> clashed.add(c.path().endsWith("/") ? c.path().substring(0, c.path().length() - 1) : c.path()));
    Map<String, LayerChange> made = new HashMap<>(); // what the command made at each path
    for (LayerChange change : changes) {
      if (change.kind() != LayerChange.Kind.DELETED) {
        made.put(change.path(), change);
      }
    }
    List<LayerChange> remaining = new ArrayList<>();
    for (LayerChange change : changes) {
      String path = change.path();
      if (clashed.contains(path) || merged.containsKey(path)) {
        continue;
      }
      switch (change.kind()) {
        case FILE, SYMLINK -> {
          if (exists(change.source())) {
            remaining.add(change);
          }
        }
        case DIRECTORY -> remaining.add(change);
        case DELETED -> {
          // a deletion followed by what the command made there: done once that is made
          LayerChange then = made.get(path);
          boolean done = then != null && (then.kind() == LayerChange.Kind.DIRECTORY
              ? Files.isDirectory(layer.project().resolve(path), LinkOption.NOFOLLOW_LINKS)
              : !exists(then.source()));
          if (!done) {
            remaining.add(change);
          }
        }
        default -> throw new IllegalStateException(change.kind().name());
      }
    }
    return remaining;
  }

  private static boolean exists(Path path) {
    return Files.exists(path, LinkOption.NOFOLLOW_LINKS);
  }
}
