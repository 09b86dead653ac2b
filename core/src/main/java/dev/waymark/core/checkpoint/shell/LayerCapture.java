package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import dev.waymark.core.layer.LayerChanges;
import dev.waymark.core.layer.LayerJournal;
import dev.waymark.core.layer.LayerSupport;
import dev.waymark.core.layer.UpperReader;
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
 * Capture by construction, the second {@link CommandCapture}: a sandboxed command runs in a
 * {@link Layer} of the project, and what it changed, exactly its layer, is recorded in its
 * checkpoint and then applied. Commands in layers do not take turns ({@link CommandSlot}); only
 * their applies do, per project. One per store, shared by its tabs; what commands left running
 * in their layers is followed per tab ({@link #settle}, {@link #settleAt}, {@link #stopBackground}).
 *
 * <p>This is where the layer package meets the checkpoints, through the narrow {@link TabRecords}
 * and {@link TabHistory}: it never sees a turn, a tree or the store.
 */
public final class LayerCapture implements CommandCapture {
  private static final Logger LOG = LoggerFactory.getLogger(LayerCapture.class);
  private static final Map<Path, LayerSupport> PROBED = new ConcurrentHashMap<>();

  private final Path project;
  private final Path root;
  private final ShadowRepository repo;
  /** The observed capture of the same project: its write log and its rules for what is left out are shared. */
  private final ShellChangeTracker tracker;
  /** How a file the command and someone else both changed is merged (a restore merges the same way). */
  private final LayerApply.Merge merge;
  private final LayerJournal journal;

  /** {@code layersRoot}: where the project's layers live, beside its shadow repository, out of every sandbox's reach. */
  public LayerCapture(Path project, Path layersRoot, ShadowRepository repo, ShellChangeTracker tracker,
      LayerApply.Merge merge) {
    this.project = project;
    this.root = layersRoot;
    this.repo = repo;
    this.tracker = tracker;
    this.merge = merge;
    this.journal = new LayerJournal(layersRoot);
  }

  /**
   * Why a command run by {@code bwrap} (the sandbox that confines it; empty: not sandboxed) cannot
   * have a layer here, tried once per project and process; empty when it can.
   */
  public Optional<String> unavailable(Optional<Path> bwrap) {
    if (bwrap.isEmpty()) {
      return Optional.of("commands are not sandboxed");
    }
    Optional<String> unsuitable = LayerSupport.unsuitable(project);
    if (unsuitable.isPresent()) {
      return unsuitable;
    }
    LayerSupport support = PROBED.computeIfAbsent(root, r -> LayerSupport.detectOnce(r, bwrap.get(), System.getenv("PATH")));
    return support.available() ? Optional.empty() : Optional.of(support.unavailable());
  }

  @Override
  public boolean takesTurns() {
    return false; // each command has a layer of its own
  }

  /**
   * A new layer for a command carrying {@code mark}, journalled as {@code checkpoint}'s; what the
   * tab's earlier commands' background processes changed since is applied and recorded first.
   */
  @Override
  public Before before(TabRecords checkpoint, long maxFileSize, CommandMark mark) {
    LayerSupport support = PROBED.get(root);
    if (support == null || !support.available()) {
      throw new CheckpointException("no copy-on-write layer can be mounted here");
    }
    settle(checkpoint);
    try {
      return new Entered(journal.begin(project, owner(checkpoint.tabId(), checkpoint.number()), mark.value()), support,
          maxFileSize);
    } catch (IOException e) {
      throw new CheckpointException(e.getMessage(), e);
    }
  }

  @Override
  public String whyNotRun(CheckpointException e) {
    return "its copy-on-write layer could not be made (" + e.getMessage() + ")";
  }

  /** A command's layer, from before it starts until it is applied. */
  private record Entered(Layer layer, LayerSupport support, long maxFileSize) implements Before {
    @Override
    public List<String> enter(List<String> argv) {
      return support.enter(layer, argv);
    }

    @Override
    public int fileCount() {
      return 0; // nothing is scanned: the layer is the command's changes
    }

    @Override
    public int examined() {
      return 0;
    }

    @Override
    public int stored() {
      return 0;
    }

    @Override
    public boolean readUsersIndex() {
      return false;
    }
  }

  /** What applying a command's layer did. */
  private record Applied(Outcome outcome) implements After {
    @Override
    public WorkTreeChanges changes() {
      return outcome.changes();
    }

    @Override
    public List<String> notApplied() {
      return outcome.notApplied();
    }

    @Override
    public Optional<String> rescueTag() {
      return outcome.rescueTag();
    }

    @Override
    public String leftRunningNote() {
      return " in the command's layer; the files they change are applied and recorded at the next command or when the "
          + "turn ends";
    }
  }

  @Override
  public Optional<String> notRun(int exitCode, String output) {
    if (!LayerSupport.notMounted(exitCode, output)) {
      return Optional.empty();
    }
    notMounted();
    return Optional.of("the command did not run: its copy-on-write layer could not be mounted; run it again, and it runs "
        + "with its changes found by comparing the files before and after");
  }

  @Override
  public After after(TabRecords checkpoint, Before before) {
    return after(checkpoint, before, new Ended(List.of(), List::of));
  }

  /**
   * Applies the layer once the command has ended: records its changes in the checkpoint (one
   * commit, before the project is touched), applies them, keeps the versions that clashed under a
   * {@code rescued} tag, and removes the layer; a layer whose command left processes running is
   * applied by copy and followed until they end.
   */
  @Override
  public After after(TabRecords checkpoint, Before before, Ended ended) {
    Entered entered = (Entered) before;
    Layer layer = entered.layer();
    List<ProcessHandle> stillRunning = ended.stillRunning().get();
    Set<String> points = Set.copyOf(ended.mountPoints().stream().map(p -> layer.project().relativize(p).toString()).toList());
    if (stillRunning.isEmpty()) {
      return new Applied(applyAndRecord(checkpoint, layer, points, entered.maxFileSize(), new LayerApply.SoFar(), false));
    }
    // background jobs still write in the layer: what it holds now is applied by copy, the rest later
    LayerApply.SoFar soFar = new LayerApply.SoFar();
    Outcome outcome = applyAndRecord(checkpoint, layer, points, entered.maxFileSize(), soFar, true);
    Layer restarted;
    try {
      restarted = layer.restarted();
    } catch (IOException e) {
      throw new CheckpointException("Could not keep the layer of a command's background processes: " + e.getMessage(), e);
    }
    OPEN.computeIfAbsent(root, r -> new ConcurrentHashMap<>())
        .computeIfAbsent(checkpoint.tabId(), t -> new java.util.concurrent.CopyOnWriteArrayList<>())
        .add(new Open(checkpoint.history(), restarted, points, entered.maxFileSize(), List.copyOf(stillRunning), soFar));
    return new Applied(outcome);
  }

  @Override
  public String whyNotRecorded(CheckpointException e) {
    return e.getMessage();
  }

  /** Nothing to do: what the command left running was followed as its layer was applied ({@link #after}). */
  @Override
  public void leftRunning(TabRecords checkpoint, After after, List<ProcessHandle> processes) {}

  private static String owner(String tab, int checkpoint) {
    return tab + "#" + checkpoint;
  }

  /**
   * Called when a command ended as one whose layer could not be mounted (it did not run): layers
   * are tried again from scratch by the next process, and not used by this one.
   */
  private void notMounted() {
    LayerSupport.forget(root);
    PROBED.put(root, new LayerSupport(Optional.empty(), Optional.empty(), "a layer could not be mounted"));
  }

  /** A layer whose command left processes writing in it, and what was applied of it so far. */
  private record Open(TabHistory tree, Layer layer, Set<String> mountPoints, long maxFileSize, List<ProcessHandle> processes,
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
  public WorkTreeChanges settle(TabRecords turn) {
    List<Open> open = OPEN.getOrDefault(root, Map.of()).get(turn.tabId());
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
  public void settleAt(TabHistory tree) {
    List<Open> open = OPEN.getOrDefault(root, Map.of()).get(tree.tabId());
    if (open == null || open.isEmpty() || tree.filesAt() <= 0) {
      return;
    }
    tree.amend(tree.filesAt(), this::settle);
  }

  /**
   * Stops the background processes of {@code tree}'s commands' layers (its tab or Waymark is
   * closing), then applies and records what they changed: nothing they do can happen later.
   */
  public void stopBackground(TabHistory tree) {
    List<Open> open = OPEN.getOrDefault(root, Map.of()).get(tree.tabId());
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
      OPEN.getOrDefault(root, Map.of()).remove(tree.tabId());
    }
  }

  /** {@link #stopBackground} for every tab of the project (Waymark is closing). */
  public void stopAll() {
    for (List<Open> open : List.copyOf(OPEN.getOrDefault(root, Map.of()).values())) {
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
  public int runningInBackground() {
    return (int) OPEN.getOrDefault(root, Map.of()).values().stream().flatMap(List::stream)
        .flatMap(o -> o.processes().stream()).filter(ProcessHandle::isAlive).filter(p -> !sandboxInit(p)).count();
  }

  /**
   * What applying a layer did: the changes made and recorded (and those skipped), what was not
   * applied (recorded in the checkpoint all the same, as the command's) and the tag it is kept under.
   */
  private record Outcome(WorkTreeChanges changes, List<String> notApplied, Optional<String> rescueTag) {
    public Outcome {
      notApplied = List.copyOf(notApplied);
    }
  }

  private Outcome applyAndRecord(TabRecords turn, Layer layer, Set<String> mountPoints, long maxFileSize,
      LayerApply.SoFar soFar, boolean keepUpper) {
    try (CommandSlot.Held applying = applySlot()) {
      LayerChanges read = UpperReader.read(layer.upper(), layer.project(), mountPoints);
      List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
      for (String path : read.unsupported()) {
        skipped.add(new WorkTreeChanges.Skipped(path, "a FIFO, socket or device: not applied to the project"));
      }
      Map<String, FileChange> recorded = new LinkedHashMap<>();
      Set<String> clashed = new java.util.HashSet<>();
      IgnoreRules rules = rulesAtTurnStart(turn);
      LayerApply.Result result = LayerApply.apply(layer, read.changes(), basesFromWriteLog(turn, layer), merge,
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
              ProjectWalker.Exclusion why = exclusion(layer, path, after != null ? then : now, rules, directories);
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
              java.util.Iterator<org.eclipse.jgit.lib.ObjectId> ids = repo.insertBlobs(contents).iterator();
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
              tracker.writeLog().append(turn.tabId(), recorded.values().stream()
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
  private IgnoreRules rulesAtTurnStart(TabRecords turn) throws IOException {
    // each directory's file read once for the whole apply, not once per changed file below it
    IgnoreRules rules = IgnoreRules.recording().extending();
    for (FileChange change : turn.changes()) {
      String path = change.path();
      if (path.equals(".gitignore") || path.endsWith("/.gitignore")) {
        String dir = path.equals(".gitignore") ? "" : path.substring(0, path.length() - "/.gitignore".length());
        rules = rules.with(dir, change.before().exists() ? repo.read(change.before().blob()) : null);
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
  private LayerApply.Bases basesFromWriteLog(TabRecords turn, Layer layer) {
    long since = layer.started().toMillis() - 1;
    List<WriteLog.Write> writes = tracker.writeLog().since(since);
    return new LayerApply.Bases() {
      private java.util.NavigableSet<String> tracked;

      @Override
      public Optional<byte[]> base(String path) {
        return firstWrite(path).map(write -> {
          String prior = write.priorBlob();
          try {
            return prior == null ? new byte[0] : repo.read(org.eclipse.jgit.lib.ObjectId.fromString(prior));
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
  private ProjectWalker.Exclusion exclusion(Layer layer, String path, FileStat entry,
      IgnoreRules rules, Map<String, Optional<ProjectWalker.Exclusion>> directories) throws IOException {
    for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
      String dir = path.substring(0, slash);
      Optional<ProjectWalker.Exclusion> known = directories.get(dir);
      if (known == null) {
        Path onDisk = layer.project().resolve(dir);
        FileStat stat = FileStat.read(Files.isDirectory(onDisk, LinkOption.NOFOLLOW_LINKS) ? onDisk : layer.upper().resolve(dir));
        known = Optional.ofNullable(tracker.exclusionOf(dir, stat, rules));
        directories.put(dir, known);
      }
      if (known.isPresent()) {
        return known.get();
      }
    }
    return tracker.exclusionOf(path, entry, rules);
  }

  /** Bytes read before a batch of blobs is stored: bounds the memory an apply of many files takes. */
  private static final long BATCH_BYTES = 64L << 20;

  private static FileVersion version(FileState state, java.util.Iterator<org.eclipse.jgit.lib.ObjectId> ids) {
    return state.exists() ? new FileVersion(state.kind(), ids.next(), state.mode()) : FileVersion.ABSENT;
  }

  /** The project's apply step, once no other tab or Waymark applies a layer to it (waiting as long as that takes). */
  private CommandSlot.Held applySlot() throws InterruptedException {
    CommandSlot slot = new CommandSlot(root.resolve("apply.lock"));
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
  private String rescue(TabRecords turn, List<LayerApply.Clash> clashes) throws IOException {
    Map<String, FileVersion> versions = new LinkedHashMap<>();
    for (LayerApply.Clash clash : clashes) {
      versions.put(clash.path(), clash.commandVersion() != null && Files.exists(clash.commandVersion(), LinkOption.NOFOLLOW_LINKS)
          ? repo.insert(List.of(FileState.read(clash.commandVersion()))).get(0) : FileVersion.ABSENT);
    }
    return turn.rescueCommandVersions(versions);
  }

  /**
   * Finishes the layers a killed Waymark left in {@code tree}'s tab (during a command or its apply):
   * stops what still runs with the command's mark, then records and applies what each layer holds
   * into its checkpoint (or a new one, if that checkpoint was never kept), and says so.
   */
  public List<String> recover(TabHistory tree) {
    List<String> report = new ArrayList<>();
    String prefix = tree.tabId() + "#";
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
          Outcome[] done = {null};
          int number = tree.inNewCancelled(turn -> {
            done[0] = applyAndRecord(turn, layer, Set.of(".waymark"), Long.MAX_VALUE, new LayerApply.SoFar(), false);
            return turn.number();
          });
          outcome = done[0];
          where = "new checkpoint #" + number;
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
