package dev.waymark.core.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.checkpoint.restore.TextMerge;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.checkpoint.shell.WriteLog;
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
  static Path layersRoot(StoreParts store) {
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
    Path root = layersRoot(turn.tree().parts());
    LayerSupport support = PROBED.computeIfAbsent(root,
        r -> LayerSupport.detectOnce(r, sandbox.bwrap().orElseThrow(), System.getenv("PATH")));
    if (!support.available()) {
      return new Capability(Optional.empty(), support.unavailable());
    }
    return new Capability(Optional.of(new LayerCapture(turn, support, new LayerJournal(root))), "");
  }

  /** Layers, or why there are none. */
  public record Capability(Optional<LayerCapture> capture, String unavailable) {}

  /**
   * A new layer for a command carrying {@code mark}, journalled as the running checkpoint's; what
   * the tab's earlier commands' background processes changed since is applied and recorded first.
   */
  public Running begin(CommandMark mark) throws IOException {
    settle(turn);
    return new Running(journal.begin(turn.tree().projectRoot(), owner(turn.tabId(), turn.number()), mark.value()));
  }

  private static String owner(String tab, int checkpoint) {
    return tab + "#" + checkpoint;
  }

  /**
   * Called when a command ended as one whose layer could not be mounted (it did not run): layers
   * are tried again from scratch by the next process, and not used by this one.
   */
  public void notMounted() {
    Path root = layersRoot(turn.tree().parts());
    LayerSupport.forget(root);
    PROBED.put(root, new LayerSupport(Optional.empty(), Optional.empty(), "a layer could not be mounted"));
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
    public Outcome finish(List<Path> mountPoints, long maxFileSize, List<ProcessHandle> stillRunning) {
      Set<String> points = Set.copyOf(mountPoints.stream().map(p -> layer.project().relativize(p).toString()).toList());
      if (stillRunning.isEmpty()) {
        return applyAndRecord(turn, layer, points, maxFileSize, new LayerApply.SoFar(), false);
      }
      // background jobs still write in the layer: what it holds now is applied by copy, the rest later
      LayerApply.SoFar soFar = new LayerApply.SoFar();
      Outcome outcome = applyAndRecord(turn, layer, points, maxFileSize, soFar, true);
      Layer restarted;
      try {
        restarted = layer.restarted();
      } catch (IOException e) {
        throw new CheckpointException("Could not keep the layer of a command's background processes: " + e.getMessage(), e);
      }
      OPEN.computeIfAbsent(layersRoot(turn.tree().parts()), r -> new ConcurrentHashMap<>())
          .computeIfAbsent(turn.tabId(), t -> new java.util.concurrent.CopyOnWriteArrayList<>())
          .add(new Open(turn.tree(), restarted, points, maxFileSize, List.copyOf(stillRunning), soFar));
      return outcome;
    }
  }

  /** A layer whose command left processes writing in it, and what was applied of it so far. */
  private record Open(CheckpointTree tree, Layer layer, Set<String> mountPoints, long maxFileSize, List<ProcessHandle> processes,
      LayerApply.SoFar soFar) {
    boolean ended() {
      return processes.stream().filter(ProcessHandle::isAlive).allMatch(LayerCapture::sandboxInit)
          && new CommandMark(layer.mark()).processes().stream().allMatch(LayerCapture::sandboxInit);
    }
  }

  /** By project (its layers' directory) and tab, the layers background processes still write in. */
  private static final Map<Path, Map<String, List<Open>>> OPEN = new ConcurrentHashMap<>();

  /** Whether {@code process} is a sandbox's first process, which only waits for the others to end. */
  private static boolean sandboxInit(ProcessHandle process) {
    return process.info().command().map(c -> c.endsWith("/bwrap")).orElse(true);
  }

  /**
   * Applies and records in {@code turn} what the tab's commands' background processes changed in
   * their layers since the last time (at the tab's next command and as its turn ends); a layer
   * whose processes have all ended is applied a last time and removed.
   */
  static WorkTreeChanges settle(Turn turn) {
    List<Open> open = OPEN.getOrDefault(layersRoot(turn.tree().parts()), Map.of()).get(turn.tabId());
    List<FileChange> recorded = new ArrayList<>();
    List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
    if (open == null) {
      return new WorkTreeChanges(recorded, skipped);
    }
    for (Open layer : List.copyOf(open)) {
      boolean ended = layer.ended();
      Outcome outcome = applyAndRecord(turn, layer.layer(), layer.mountPoints(), layer.maxFileSize(), layer.soFar(), !ended);
      recorded.addAll(outcome.changes().recorded());
      skipped.addAll(outcome.changes().skipped());
      open.remove(layer);
      if (!ended) {
        try {
          open.add(new Open(layer.tree(), layer.layer().restarted(), layer.mountPoints(), layer.maxFileSize(), layer.processes(),
              layer.soFar()));
        } catch (IOException e) {
          LOG.warn("could not keep following {}", layer.layer(), e);
        }
      }
    }
    return new WorkTreeChanges(recorded, skipped);
  }

  /** {@link #settle} into the checkpoint whose files are on disk (before a restore of {@code tree}), when there is one. */
  static void settleAt(CheckpointTree tree) {
    List<Open> open = OPEN.getOrDefault(layersRoot(tree.parts()), Map.of()).get(tree.tabId());
    if (open == null || open.isEmpty() || tree.filesAt() <= 0) {
      return;
    }
    tree.amend(tree.filesAt(), LayerCapture::settle);
  }

  /**
   * Stops the background processes of {@code tree}'s commands' layers (its tab or Waymark is
   * closing), then applies and records what they changed: nothing they do can happen later.
   */
  static void stopBackground(CheckpointTree tree) {
    List<Open> open = OPEN.getOrDefault(layersRoot(tree.parts()), Map.of()).get(tree.tabId());
    if (open == null || open.isEmpty()) {
      return;
    }
    for (Open layer : open) {
      CommandMark.stop(layer.processes(), 2_000);
      new CommandMark(layer.layer().mark()).stopAll(2_000);
    }
    try {
      settleAt(tree);
    } finally {
      OPEN.getOrDefault(layersRoot(tree.parts()), Map.of()).remove(tree.tabId());
    }
  }

  /** {@link #stopBackground} for every tab of the project whose layers live in {@code layersRoot} (Waymark is closing). */
  static void stopAll(Path layersRoot) {
    for (List<Open> open : List.copyOf(OPEN.getOrDefault(layersRoot, Map.of()).values())) {
      if (!open.isEmpty()) {
        try {
          stopBackground(open.get(0).tree());
        } catch (RuntimeException e) {
          LOG.warn("could not stop or record the background processes of tab {}", open.get(0).tree().tabId(), e);
        }
      }
    }
  }

  /** How many processes the commands' layers of this project's tabs still have running (what quitting would stop). */
  static int runningInBackground(Path layersRoot) {
    return (int) OPEN.getOrDefault(layersRoot, Map.of()).values().stream().flatMap(List::stream)
        .flatMap(o -> o.processes().stream()).filter(ProcessHandle::isAlive).filter(p -> !sandboxInit(p)).count();
  }

  /**
   * What applying a layer did: the changes made and recorded (and those skipped), what was not
   * applied (recorded in the checkpoint all the same, as the command's) and the tag it is kept under.
   */
  public record Outcome(WorkTreeChanges changes, List<String> notApplied, Optional<String> rescueTag) {
    public Outcome {
      notApplied = List.copyOf(notApplied);
    }
  }

  private static Outcome applyAndRecord(Turn turn, Layer layer, Set<String> mountPoints, long maxFileSize,
      LayerApply.SoFar soFar, boolean keepUpper) {
    StoreParts store = turn.tree().parts();
    try (CommandSlot.Held applying = applySlot(store)) {
      LayerChanges read = UpperReader.read(layer.upper(), layer.project(), mountPoints);
      List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
      for (String path : read.unsupported()) {
        skipped.add(new WorkTreeChanges.Skipped(path, "a FIFO, socket or device: not applied to the project"));
      }
      Map<String, FileChange> recorded = new LinkedHashMap<>();
      Set<String> clashed = new java.util.HashSet<>();
      IgnoreRules rules = rulesAtTurnStart(turn);
      LayerApply.Result result = LayerApply.apply(layer, read.changes(), basesFromWriteLog(turn, layer), TextMerge::merge,
          new LayerApply.Recorder() {
            /** Read but not yet stored: stored in batches (one pack each), then recorded together. */
            private final List<String> paths = new ArrayList<>();
            /** Why each directory above a change is left out (absent: it is not), decided once. */
            private final Map<String, Optional<ProjectWalker.Exclusion>> directories = new java.util.HashMap<>();
            private final List<FileState> states = new ArrayList<>();
            private long bytes;

            @Override
            public void beforeChange(String path, Path current, Path after) throws IOException {
              // each side looked at once: its stat serves the rules, the size limit and the read
              FileStat now = current == null ? FileStat.MISSING : FileStat.read(current);
              FileStat then = after == null ? FileStat.MISSING : FileStat.read(after);
              ProjectWalker.Exclusion why = exclusion(store, layer, path, after != null ? then : now, rules, directories);
              if (why != null) {
                skipped.add(new WorkTreeChanges.Skipped(path, why.described() + ": applied, not recorded"));
                return;
              }
              long size = Math.max(sizeOf(now), sizeOf(then));
              if (size > maxFileSize) {
                skipped.add(new WorkTreeChanges.Skipped(path, "larger than the " + maxFileSize
                    + "-byte limit: applied, not recorded, and undo leaves it"));
                return;
              }
              paths.add(path);
              states.add(current == null ? FileState.absent() : FileState.read(current, now));
              states.add(after == null ? FileState.absent() : FileState.read(after, then));
              bytes += 2 * size;
              if (bytes > BATCH_BYTES) {
                store();
              }
            }

            private void store() {
              List<byte[]> contents = new ArrayList<>();
              for (FileState state : states) {
                if (state.exists()) {
                  contents.add(state.contentUnsafe());
                }
              }
              java.util.Iterator<org.eclipse.jgit.lib.ObjectId> ids = store.repo().insertBlobs(contents).iterator();
              List<FileChange> batch = new ArrayList<>();
              for (int i = 0; i < paths.size(); i++) {
                batch.add(new FileChange(paths.get(i), version(states.get(2 * i), ids), version(states.get(2 * i + 1), ids)));
              }
              turn.recordStoredChanges(batch).forEach((path, why) -> skipped.add(new WorkTreeChanges.Skipped(path, why)));
              batch.forEach(change -> recorded.put(change.path(), change));
              paths.clear();
              states.clear();
              bytes = 0;
            }

            @Override
            public void clashed(String path, Path current, Path commandVersion) throws IOException {
              clashed.add(path);
              beforeChange(path, current, commandVersion);
            }

            @Override
            public void allTold() {
              store();
              turn.persist(); // every change under the checkpoint's tag before the first is made
              // noted before they are made: a command captured by comparison meanwhile does not take them for its own
              store.changeTracker().writeLog().append(turn.tabId(), recorded.values().stream()
                  .filter(change -> !clashed.contains(change.path())).toList(), System.currentTimeMillis());
            }
          }, soFar, keepUpper);
      List<FileChange> changes = new ArrayList<>();
      for (FileChange change : turn.changes()) {
        if (recorded.containsKey(change.path()) && !clashed.contains(change.path())) {
          changes.add(change);
        }
      }
      List<String> notApplied = new ArrayList<>();
      Optional<String> tag = Optional.empty();
      if (!result.clashes().isEmpty()) {
        tag = Optional.of(rescue(turn, result.clashes()));
        for (LayerApply.Clash clash : result.clashes()) {
          notApplied.add(clash.path() + ": " + clash.reason());
        }
      }
      if (!keepUpper) {
        try {
          layer.delete();
        } catch (IOException e) {
          LOG.warn("{} was applied but could not be removed", layer, e); // without its journal, it is never applied again
        }
      }
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

  /**
   * The ignore rules a command's changes are recorded under: the project's (the command's own
   * {@code .gitignore} edits are still in its layer), except that a {@code .gitignore} this turn
   * changed before the command counts as it was when the turn started: what the agent ignored
   * along the way cannot hide what its commands then change.
   */
  private static IgnoreRules rulesAtTurnStart(Turn turn) throws IOException {
    // each directory's file read once for the whole apply, not once per changed file below it
    IgnoreRules rules = IgnoreRules.recording().extending();
    for (FileChange change : turn.changes()) {
      String path = change.path();
      if (path.equals(".gitignore") || path.endsWith("/.gitignore")) {
        String dir = path.equals(".gitignore") ? "" : path.substring(0, path.length() - "/.gitignore".length());
        rules = rules.with(dir, change.before().exists() ? turn.tree().parts().repo().read(change.before().blob()) : null);
      }
    }
    return rules;
  }

  /**
   * What the project held as the command started, for the paths changed meanwhile. The version of
   * a path a Waymark tool (of any tab or process) wrote while it ran: what the first such write
   * replaced, as the {@link WriteLog} says. An editor's write leaves no such trace: then there is
   * no base, and a change of both sides clashes. A path absent now was there if such a write
   * replaced it, if the user's git index tracks it, or if this turn recorded it as there.
   */
  private static LayerApply.Bases basesFromWriteLog(Turn turn, Layer layer) {
    StoreParts store = turn.tree().parts();
    long since = layer.started().toMillis() - 1;
    List<WriteLog.Write> writes = store.changeTracker().writeLog().since(since);
    return new LayerApply.Bases() {
      private java.util.NavigableSet<String> tracked;

      @Override
      public Optional<byte[]> base(String path) {
        return firstWrite(path).map(write -> {
          String prior = write.priorBlob();
          try {
            return prior == null ? new byte[0] : store.repo().read(org.eclipse.jgit.lib.ObjectId.fromString(prior));
          } catch (IOException | RuntimeException e) {
            return null;
          }
        });
      }

      @Override
      public boolean existed(String path) {
        Optional<WriteLog.Write> write = firstWrite(path);
        if (write.isPresent()) {
          return write.get().priorBlob() != null;
        }
        for (FileChange change : turn.changes()) {
          if (change.path().equals(path)) {
            return change.after().exists();
          }
        }
        if (tracked == null) {
          try (var git = dev.waymark.core.checkpoint.project.UserGitRepository.find(layer.project()).orElse(null)) {
            tracked = git == null ? new java.util.TreeSet<>() : git.trackedPaths();
          }
        }
        return tracked.contains(path);
      }

      private Optional<WriteLog.Write> firstWrite(String path) {
        return writes.stream().filter(w -> w.path().equals(path) && w.prior() != null).findFirst();
      }
    };
  }

  /** Why {@code path} (now {@code entry}) is left out of the records: a directory above it, or itself; null when recorded. */
  private static ProjectWalker.Exclusion exclusion(StoreParts store, Layer layer, String path, FileStat entry,
      IgnoreRules rules, Map<String, Optional<ProjectWalker.Exclusion>> directories) throws IOException {
    for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
      String dir = path.substring(0, slash);
      Optional<ProjectWalker.Exclusion> known = directories.get(dir);
      if (known == null) {
        Path onDisk = layer.project().resolve(dir);
        FileStat stat = FileStat.read(Files.isDirectory(onDisk, LinkOption.NOFOLLOW_LINKS) ? onDisk : layer.upper().resolve(dir));
        known = Optional.ofNullable(store.changeTracker().exclusionOf(dir, stat, rules));
        directories.put(dir, known);
      }
      if (known.isPresent()) {
        return known.get();
      }
    }
    return store.changeTracker().exclusionOf(path, entry, rules);
  }

  /** Bytes read before a batch of blobs is stored: bounds the memory an apply of many files takes. */
  private static final long BATCH_BYTES = 64L << 20;

  private static FileVersion version(FileState state, java.util.Iterator<org.eclipse.jgit.lib.ObjectId> ids) {
    return state.exists() ? new FileVersion(state.kind(), ids.next(), state.mode()) : FileVersion.ABSENT;
  }

  /** The project's apply step, once no other tab or Waymark applies a layer to it (waiting as long as that takes). */
  private static CommandSlot.Held applySlot(StoreParts store) throws InterruptedException {
    CommandSlot slot = new CommandSlot(layersRoot(store).resolve("apply.lock"));
    for (;;) {
      Optional<CommandSlot.Held> held = slot.take(APPLY_POLL_MILLIS);
      if (held.isPresent()) {
        return held.get();
      }
    }
  }

  private static final long APPLY_POLL_MILLIS = 1_000;

  private static long sizeOf(FileStat stat) {
    return stat.kind() == dev.waymark.core.checkpoint.lib.FileKind.SYMLINK ? 0 : stat.size();
  }

  /** Keeps the command's versions of the clashing paths under a {@code rescued} tag; returns it. */
  private static String rescue(Turn turn, List<LayerApply.Clash> clashes) throws IOException {
    StoreParts store = turn.tree().parts();
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
    Path root = layersRoot(tree.parts());
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
            done[0] = applyAndRecord(turn, layer, Set.of(".waymark"), Long.MAX_VALUE, new LayerApply.SoFar(), false);
            return done[0].changes();
          });
          outcome = done[0];
          where = "checkpoint #" + checkpoint;
        } else {
          Turn turn = tree.begin();
          outcome = applyAndRecord(turn, layer, Set.of(".waymark"), Long.MAX_VALUE, new LayerApply.SoFar(), false);
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
