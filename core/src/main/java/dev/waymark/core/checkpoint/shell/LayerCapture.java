package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import dev.waymark.core.layer.LayerJournal;
import dev.waymark.core.layer.LayerSupport;
import dev.waymark.core.layer.View;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Capture by construction, the second {@link CommandCapture}: a sandboxed command runs in a
 * {@link Layer} of the project, and what it changed, exactly its layer, is recorded in its
 * checkpoint and then applied. Commands in layers do not take turns ({@link CommandSlot}); only
 * their applies do, per project. One per store, shared by its tabs; what commands left running
 * in their layers is followed by the store's {@link CommandJobs}. The parts: {@link LayerRecording}
 * (records a layer, then applies it), {@link LayerRecovery} (layers a killed Waymark left).
 *
 * <p>This is where the layer package meets the checkpoints, through the narrow {@link TabRecords}
 * and {@link TabHistory}: it never sees a turn, a tree or the store.
 */
public final class LayerCapture implements CommandCapture {

  private final Path project;
  private final Path root;
  private final LayerJournal journal;
  private final LayerRecording recording;
  private final CommandJobs jobs;
  private final LayerRecovery recovery;
  private final ViewLanding views;
  /** By view directory: what its commands stored of it, so that the next command stores only what changed since. */
  private final Map<Path, ViewVersions> viewVersions = new ConcurrentHashMap<>();

  /** Whether layers can be mounted here, tried once per store (one per project and process); null until tried. */
  private volatile LayerSupport probed;

  /** Vouches for what the project's files held as a command starts, where anything does (the store's view). */
  private final ProjectView view;

  /**
   * {@code layersRoot}: where the project's layers live, beside its shadow repository, out of
   * every sandbox's reach; {@code view}: what the store knows of the project's files, and its rules for
   * what is left out; {@code writeLog}: the store's log of what Waymark's tools wrote; {@code merge}: how
   * a file the command and someone else both changed is merged; {@code jobs}: who follows what commands leave running.
   */
  public LayerCapture(Path project, Path layersRoot, ShadowRepository repo, ProjectView view, WriteLog writeLog,
      LayerApply.Merge merge, CommandJobs jobs) {
    this.project = project;
    this.root = layersRoot;
    this.view = view;
    this.journal = new LayerJournal(layersRoot);
    this.recording = new LayerRecording(layersRoot, repo, view, writeLog, merge);
    this.jobs = jobs;
    this.recovery = new LayerRecovery(layersRoot, recording);
    this.views = new ViewLanding(project, layersRoot.resolveSibling("views"), journal, recording);
  }

  /** Isolated tabs' views: opened, landed and discarded. */
  public ViewLanding views() {
    return views;
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
    LayerSupport support = probed(bwrap.get());
    return support.available() ? Optional.empty() : Optional.of(support.unavailable());
  }

  /**
   * The capture of an isolated tab's commands, in its view kept in {@code viewDir}, when
   * {@code bwrap} can run them in it; else why not (an isolated tab's commands run only there).
   */
  public ViewCapture inView(Path viewDir, Optional<Path> bwrap) {
    Optional<String> unavailable = unavailable(bwrap);
    if (unavailable.isPresent()) {
      throw new CheckpointException(CheckpointException.Kind.UNSUPPORTED, "an isolated tab runs commands only in its copy-on-write view, which cannot be "
          + "mounted here (" + unavailable.get() + ")");
    }
    try {
      return new ViewCapture(View.read(viewDir).orElseThrow(
          () -> new CheckpointException(CheckpointException.Kind.LOST, "the tab's view is gone from " + viewDir)), probed,
          viewVersions.computeIfAbsent(viewDir, dir -> new ViewVersions()));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "the tab's view cannot be read: " + e.getMessage(), e);
    }
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
    LayerSupport support = probed;
    if (support == null || !support.available()) {
      throw new CheckpointException(CheckpointException.Kind.UNSUPPORTED, "no copy-on-write layer can be mounted here");
    }
    jobs.settleLayers(checkpoint);
    // taken before the layer starts: a file someone changes after this held what it vouches for when the command began
    Optional<ProjectView.Vouch> startedFrom = view.vouchNow();
    try {
      return new Entered(journal.begin(project, owner(checkpoint.tabId(), checkpoint.number()), mark.value()), support,
          maxFileSize, startedFrom);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, e.getMessage(), e);
    }
  }

  @Override
  public Way way() {
    return Way.LAYERED;
  }

  /** A command's layer, from before it starts until it is applied. */
  private record Entered(Layer layer, LayerSupport support, long maxFileSize,
      Optional<ProjectView.Vouch> startedFrom) implements Before {
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
  private record Applied(LayerRecording.Outcome outcome) implements After {
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
  }

  @Override
  public boolean neverRan(int exitCode, String output) {
    if (!LayerSupport.notMounted(exitCode, output)) {
      return false;
    }
    notMounted(); // the next command is compared instead, as the sentence for this says
    return true;
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
      Applied applied = new Applied(recording.applyAndRecord(checkpoint, layer, points, entered.maxFileSize(),
          new LayerApply.SoFar(), false, entered.startedFrom()));
      view.refreshSoon(entered.maxFileSize()); // what the next command starts from stays known
      return applied;
    }
    // background jobs still write in the layer: what it holds now is applied by copy, the rest later
    LayerApply.SoFar soFar = new LayerApply.SoFar();
    LayerRecording.Outcome outcome = recording.applyAndRecord(checkpoint, layer, points, entered.maxFileSize(), soFar, true,
        entered.startedFrom());
    Layer restarted;
    try {
      restarted = layer.restarted();
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not keep the layer of a command's background processes: " + e.getMessage(), e);
    }
    jobs.followLayer(checkpoint.history(), restarted, points, entered.maxFileSize(), stillRunning, soFar, recording);
    return new Applied(outcome);
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
  private synchronized LayerSupport probed(Path bwrap) {
    if (probed == null) {
      probed = LayerSupport.detectOnce(root, bwrap, System.getenv("PATH"));
    }
    return probed;
  }

  private void notMounted() {
    LayerSupport.forget(root);
    probed = new LayerSupport(Optional.empty(), Optional.empty(), "a layer could not be mounted");
  }

  /** See {@link CommandJobs#settleLayers}: as its turn ends. */
  public WorkTreeChanges settle(TabRecords turn) {
    return jobs.settleLayers(turn);
  }

  /** See {@link LayerRecovery#recover}: as a tab is brought back. */
  public List<String> recover(TabHistory tree) {
    return recovery.recover(tree);
  }
}
