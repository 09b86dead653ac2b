package dev.waymark.core.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import dev.waymark.core.layer.LayerChanges;
import dev.waymark.core.layer.LayerJournal;
import dev.waymark.core.layer.LayerSupport;
import dev.waymark.core.layer.UpperReader;
import dev.waymark.core.sandbox.ShellSandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Capture by construction: a sandboxed command of a turn runs in a {@link Layer} of the project,
 * and what it changed, exactly its layer, is recorded in the turn's checkpoint and then applied.
 * Commands in layers do not take turns ({@link CommandSlot}); only their applies do, per project.
 *
 * <p>This is where the layer package meets the checkpoints: the seam a capture of shell changes
 * offers is {@code begin} (before the command) and {@code finish} (after it: the
 * {@link WorkTreeChanges} recorded, as a tree comparison reports them).
 */
public final class LayerCapture {
  private static final Logger LOG = LoggerFactory.getLogger(LayerCapture.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<Path, LayerSupport> PROBED = new ConcurrentHashMap<>();

  private final Turn turn;
  private final LayerSupport support;
  private final LayerJournal journal;

  private LayerCapture(Turn turn, LayerSupport support, LayerJournal journal) {
    this.turn = turn;
    this.support = support;
    this.journal = journal;
  }

  /** Where a project's layers live: beside its shadow repository, out of every sandbox's reach. */
  static Path layersRoot(ShadowStore store) {
    return store.shadowDirectory().resolveSibling("layers");
  }

  /**
   * Layers for {@code turn}'s sandboxed commands, when they can be made here (tried once per
   * project and process); otherwise why not, for the caller to say and capture by observation.
   */
  public static Capability of(Turn turn, ShellSandbox sandbox) {
    if (!sandbox.confines()) {
      return new Capability(Optional.empty(), "commands are not sandboxed");
    }
    Optional<String> unsuitable = LayerSupport.unsuitable(turn.tree().projectRoot());
    if (unsuitable.isPresent()) {
      return new Capability(Optional.empty(), unsuitable.get());
    }
    Path root = layersRoot(turn.tree().store());
    LayerSupport support = PROBED.computeIfAbsent(root,
        r -> LayerSupport.detect(r, sandbox.bwrap().orElseThrow(), System.getenv("PATH")));
    if (!support.available()) {
      return new Capability(Optional.empty(), support.unavailable());
    }
    return new Capability(Optional.of(new LayerCapture(turn, support, new LayerJournal(root))), "");
  }

  /** Layers, or why there are none. */
  public record Capability(Optional<LayerCapture> capture, String unavailable) {}

  /** A new layer for a command carrying {@code mark}, journalled as the running checkpoint's. */
  public Running begin(CommandMark mark) throws IOException {
    return new Running(journal.begin(turn.tree().projectRoot(), owner(turn.tabId(), turn.number()), mark.value()));
  }

  private static String owner(String tab, int checkpoint) {
    return tab + "#" + checkpoint;
  }

  /** A command's layer, from before it starts until it is applied. */
  public final class Running {
    private final Layer layer;

    private Running(Layer layer) {
      this.layer = layer;
    }

    /** {@code wrapped} (the sandbox's command line) entered in this layer. */
    public List<String> enter(ShellSandbox.Wrapped wrapped) {
      return support.enter(layer, wrapped.argv());
    }

    /**
     * Applies the layer once the command has ended: records its changes in the turn (one commit,
     * before the project is touched), applies them, keeps the versions that clashed under a
     * {@code rescued} tag, and removes the layer. {@code mountPoints}: the empty directories the
     * sandbox made to mount over.
     */
    public Outcome finish(List<Path> mountPoints, long maxFileSize) {
      Set<String> points = Set.copyOf(mountPoints.stream().map(p -> layer.project().relativize(p).toString()).toList());
      return applyAndRecord(turn, layer, points, maxFileSize);
    }
  }

  /** What applying a layer did: the changes recorded (and skipped), what was not applied and where it is kept. */
  public record Outcome(WorkTreeChanges changes, List<String> notApplied, Optional<String> rescueTag) {
    public Outcome {
      notApplied = List.copyOf(notApplied);
    }
  }

  private static Outcome applyAndRecord(Turn turn, Layer layer, Set<String> mountPoints, long maxFileSize) {
    ShadowStore store = turn.tree().store();
    try (CommandSlot.Held applying = new CommandSlot(layersRoot(store).resolve("apply.lock")).take(Long.MAX_VALUE)
        .orElseThrow()) {
      LayerChanges read = UpperReader.read(layer.upper(), layer.project(), mountPoints);
      List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
      for (String path : read.unsupported()) {
        skipped.add(new WorkTreeChanges.Skipped(path, "a FIFO, socket or device: not applied to the project"));
      }
      Map<String, FileChange> recorded = new LinkedHashMap<>();
      LayerApply.Result result = LayerApply.apply(layer, read.changes(), LayerApply.Bases.UNKNOWN, TextMerge::merge,
          new LayerApply.Recorder() {
            @Override
            public void beforeChange(String path, Path current, Path after) throws IOException {
              long size = Math.max(sizeOf(current), after == null ? 0 : sizeOf(after));
              if (size > maxFileSize) {
                skipped.add(new WorkTreeChanges.Skipped(path, "larger than the " + maxFileSize
                    + "-byte limit: applied, not recorded, and undo leaves it"));
                return;
              }
              FileState before = FileState.read(current);
              FileState now = after == null ? FileState.absent() : FileState.read(after);
              turn.record(path, before, now);
              recorded.put(path, null);
            }

            @Override
            public void allTold() {
              turn.persist(); // every change under the checkpoint's tag before the first is made
            }
          });
      List<FileChange> changes = new ArrayList<>();
      for (FileChange change : turn.changes()) {
        if (recorded.containsKey(change.path())) {
          changes.add(change);
        }
      }
      store.changeTracker().writeLog().append(turn.tabId(), changes, System.currentTimeMillis());
      List<String> notApplied = new ArrayList<>();
      Optional<String> tag = Optional.empty();
      if (!result.clashes().isEmpty()) {
        tag = Optional.of(rescue(turn, result.clashes()));
        for (LayerApply.Clash clash : result.clashes()) {
          notApplied.add(clash.path() + ": " + clash.reason());
        }
      }
      layer.delete();
      return new Outcome(new WorkTreeChanges(changes, skipped), notApplied, tag);
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not apply {}", layer, e);
      throw new CheckpointException("Could not apply the command's changes to the project (" + e.getMessage()
          + "); they are kept in " + layer.directory() + " and applied when Waymark next opens this tab", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException("Interrupted before the command's changes were applied; they are kept in "
          + layer.directory() + " and applied when Waymark next opens this tab", e);
    }
  }

  private static long sizeOf(Path file) throws IOException {
    return Files.isSymbolicLink(file) || !Files.exists(file, LinkOption.NOFOLLOW_LINKS) ? 0 : Files.size(file);
  }

  /** Keeps the command's versions of the clashing paths under a {@code rescued} tag; returns it. */
  private static String rescue(Turn turn, List<LayerApply.Clash> clashes) throws IOException {
    ShadowStore store = turn.tree().store();
    List<ShadowRepository.TreeEntry> entries = new ArrayList<>();
    ObjectNode manifest = JSON.createObjectNode();
    manifest.put("format", 1);
    manifest.put("tab", turn.tabId());
    manifest.put("rescuedAt", turn.number());
    var files = manifest.putArray("files");
    for (LayerApply.Clash clash : clashes) {
      files.add(clash.path());
      if (clash.commandVersion() != null && Files.exists(clash.commandVersion(), LinkOption.NOFOLLOW_LINKS)) {
        FileVersion version = store.repo().insert(List.of(FileState.read(clash.commandVersion()))).get(0);
        entries.add(new ShadowRepository.TreeEntry("command/" + clash.path(), version));
      }
    }
    var now = store.clock().instant();
    String base = ShadowStore.tagPrefix(turn.tabId()) + "rescued/" + turn.number() + "-"
        + now.toString().replace(':', '.').replaceAll("\\.\\d+Z$", "Z");
    String tag = base;
    for (int i = 1; store.repo().resolve(tag) != null; i++) {
      tag = base + "-" + i;
    }
    store.repo().commitAndTag(entries, CheckpointManifest.bytes(manifest), List.of(),
        "waymark " + turn.tabId() + ": the command of #" + turn.number() + " changed files changed meanwhile\n", now, tag);
    return tag;
  }

  /**
   * Finishes the layers a killed Waymark left in {@code tree}'s tab (during a command or its apply):
   * stops what still runs with the command's mark, then records and applies what each layer holds
   * into its checkpoint (or a new one, if that checkpoint was never kept), and says so.
   */
  static List<String> recover(CheckpointTree tree) {
    List<String> report = new ArrayList<>();
    String prefix = tree.tabId() + "#";
    Path root = layersRoot(tree.store());
    if (!Files.isDirectory(root)) {
      return report;
    }
    for (Layer layer : new LayerJournal(root).leftBehind(owner -> owner.startsWith(prefix))) {
      int checkpoint;
      try {
        checkpoint = Integer.parseInt(layer.owner().substring(prefix.length()));
      } catch (NumberFormatException e) {
        continue;
      }
      if (!layer.mark().isEmpty() && CommandMark.findable()) {
        new CommandMark(layer.mark()).stopAll(3_000);
      }
      try {
        Outcome outcome;
        String where;
        if (tree.has(checkpoint)) {
          Outcome[] done = {null};
          tree.amend(checkpoint, turn -> {
            done[0] = applyAndRecord(turn, layer, Set.of(".waymark"), Long.MAX_VALUE);
            return done[0].changes();
          });
          outcome = done[0];
          where = "checkpoint #" + checkpoint;
        } else {
          Turn turn = tree.begin();
          outcome = applyAndRecord(turn, layer, Set.of(".waymark"), Long.MAX_VALUE);
          turn.finish(CheckpointStatus.CANCELLED);
          where = "new checkpoint #" + turn.number();
        }
        report.add("the shell command of checkpoint #" + checkpoint + " was interrupted when Waymark stopped; its "
            + outcome.changes().recorded().size() + " file change(s) were applied now and are recorded in " + where
            + (outcome.notApplied().isEmpty() ? "" : "; not applied, as the files changed since: "
                + String.join(", ", outcome.notApplied()) + " (kept under " + outcome.rescueTag().orElse("") + ")"));
      } catch (RuntimeException e) {
        LOG.warn("could not finish {}", layer, e);
        report.add("the changes of the interrupted shell command of checkpoint #" + checkpoint + " are kept in "
            + layer.directory() + " and could not be applied: " + e.getMessage());
      }
    }
    return report;
  }
}
