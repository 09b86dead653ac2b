package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import dev.waymark.core.layer.LayerChange;
import dev.waymark.core.layer.LayerJournal;
import dev.waymark.core.layer.View;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Isolated tabs' views, opened, landed and discarded. A land hands the view's upper directory to
 * a layer ({@link View#land}) and applies it as a command's layer is applied ({@link LayerRecording}:
 * recorded in the checkpoint first, merged three-way from the view's bases where the project
 * changed since, clashes kept under a {@code rescued} tag, journalled so that a kill ends as if the
 * land had finished or never started, finished by {@link LayerRecovery} when the tab is opened
 * again). A discard is a checkpoint of the view going back to the project, so undo brings it back.
 */
public final class ViewLanding {
  /** In a view while a land that keeps its tab isolated is under way. */
  private static final String KEEPS_ISOLATION = "keeps-isolation";

  private final Path project;
  private final Path viewsRoot;
  private final LayerJournal journal;
  private final LayerRecording recording;

  ViewLanding(Path project, Path viewsRoot, LayerJournal journal, LayerRecording recording) {
    this.project = project;
    this.viewsRoot = viewsRoot;
    this.journal = journal;
    this.recording = recording;
  }

  /**
   * What a land did: the paths landed as the view held them ({@code deleted}: those of them it
   * removed from the project), those merged with the project's later changes, those not landed (a line each, the path first)
   * and where they are kept.
   */
  public record Landed(List<String> landed, List<String> deleted, List<String> merged, List<String> notLanded,
      Optional<String> rescueTag) {
    public Landed {
      landed = List.copyOf(landed);
      deleted = List.copyOf(deleted);
      merged = List.copyOf(merged);
      notLanded = List.copyOf(notLanded);
    }

    /** The paths not landed, the project's version kept. */
    public List<String> setAside() {
      return notLanded.stream().map(line -> line.substring(0, Math.max(0, line.indexOf(": ")))).toList();
    }
  }

  /**
   * One path a view holds other than the project, as a land finds it: the view's entry (absent:
   * deleted in the view) and its base, what the project held when the view first changed it
   * ({@code baseKnown} false: someone changed it while the command that did ran; {@code base} null: absent).
   */
  public record Held(String path, FileState view, boolean baseKnown, byte[] base) {}

  /** What the view kept in {@code viewDir} holds, path by path (directories not counted), to be put back as it was. */
  public List<Held> held(Path viewDir) {
    View view = read(viewDir);
    try {
      List<Held> held = new ArrayList<>();
      for (LayerChange change : view.changes().changes()) {
        if (change.kind() == LayerChange.Kind.DIRECTORY) {
          continue;
        }
        FileState shown = change.kind() == LayerChange.Kind.DELETED ? FileState.absent() : FileState.read(change.source());
        String path = change.path();
        boolean known = view.bases().noted(path) && !view.bases().unknown(path);
        byte[] base = known && view.bases().existed(path) ? view.bases().base(path).orElse(null) : null;
        held.add(new Held(path, shown, known, base));
      }
      return held;
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The tab's view cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * Opens {@code tabId}'s view again holding {@code held} (each path's entry and base as a land found
   * them), over the project as it is now; a view kept there is emptied first. Returns the paths that
   * could not be put back, the project's structure now standing in the way (a link where the view
   * had a directory): their versions stay in the land's checkpoint.
   */
  public List<String> reopen(String tabId, List<Held> held) {
    for (Held h : held) {
      if (!inside(h.path())) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, "The land's record names " + h.path()
            + ", which is not a path inside the project; the view was not put back.");
      }
    }
    try {
      Optional<View> kept = View.read(viewsRoot.resolve(tabId));
      if (kept.isPresent()) {
        kept.get().delete();
      }
      View view = View.open(viewsRoot, project, tabId);
      List<String> notPutBack = new ArrayList<>();
      for (Held h : held) {
        FileKind kind = h.view().kind();
        int mode = h.view().mode() != FileVersion.NO_MODE ? h.view().mode() : kind == FileKind.EXECUTABLE ? 0755 : 0644;
        try {
          view.putBack(h.path(), h.baseKnown(), h.base(), h.view().exists() ? h.view().contentUnsafe() : null, mode,
              kind == FileKind.SYMLINK);
        } catch (IOException inTheWay) {
          notPutBack.add(h.path());
        }
      }
      return notPutBack;
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not put the tab's view back: " + e.getMessage(), e);
    }
  }

  /** Whether {@code path} names a file inside the project, out of every {@code .git}: relative, no empty, {@code .} or {@code ..} part. */
  private static boolean inside(String path) {
    if (path.isEmpty() || path.startsWith("/")) {
      return false;
    }
    for (String part : path.split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..") || part.equals(".git") || part.indexOf('\0') >= 0) {
        return false;
      }
    }
    return true;
  }

  /** Opens a new, empty view for {@code tabId}; returns where it is kept. */
  public Path open(String tabId) {
    try {
      return View.open(viewsRoot, project, tabId).directory();
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not make the tab's view: " + e.getMessage(), e);
    }
  }

  /**
   * Lands the view kept in {@code viewDir} on the project, recorded in {@code turn}; the view is
   * left empty. {@code keepIsolated}: the tab goes on isolated, which a kill during the land must
   * not undo (noted in the view until the land is recorded; see {@link #endedByALand}).
   */
  public Landed land(TabRecords turn, Path viewDir, boolean keepIsolated) {
    View view = read(viewDir);
    Layer layer;
    try {
      if (view.empty()) {
        throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "The tab's view holds no changes; there is nothing to land.");
      }
      if (keepIsolated) {
        Files.write(viewDir.resolve(KEEPS_ISOLATION), new byte[0]);
      } else {
        Files.deleteIfExists(viewDir.resolve(KEEPS_ISOLATION)); // left by a land killed before it began
      }
      layer = view.land(journal, turn.tabId() + "#" + turn.number());
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not start the land: " + e.getMessage(), e);
    }
    LayerRecording.Outcome outcome = recording.applyAndRecord(turn, layer, Set.of(), Long.MAX_VALUE,
        new LayerApply.SoFar(), false, Optional.empty());
    try {
      Files.deleteIfExists(viewDir.resolve(KEEPS_ISOLATION)); // recorded: a kill from here leaves the view as it is
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not finish the land: " + e.getMessage(), e);
    }
    List<String> landed = outcome.changes().recorded().stream().map(FileChange::path).toList();
    // the layer's words are a command's: here what ran is the tab, since it first changed the file
    List<String> notLanded = outcome.notApplied().stream().map(line -> line.replace("while the command ran",
        "since the tab first changed it").replace("the command's", "the tab's")).toList();
    List<String> deleted = outcome.changes().recorded().stream().filter(c -> !c.after().exists()).map(FileChange::path)
        .toList();
    return new Landed(landed, deleted, List.of(), notLanded, outcome.rescueTag());
  }

  /**
   * Records in {@code turn} the view kept in {@code viewDir} going back to the project (each path
   * from the view's version to the project's: undo brings the view back), then empties it; what it
   * held stays reachable from the checkpoint's tag until retention drops it. Returns the paths.
   */
  public List<String> discard(TabRecords turn, Path viewDir) {
    View view = read(viewDir);
    try {
      List<String> paths = new ArrayList<>();
      List<FileState> states = new ArrayList<>();
      for (LayerChange change : view.changes().changes()) {
        if (change.kind() == LayerChange.Kind.DIRECTORY) {
          continue;
        }
        paths.add(change.path());
        Optional<Path> shown = view.locate(change.path());
        states.add(shown.isEmpty() || Files.isDirectory(shown.get(), LinkOption.NOFOLLOW_LINKS) ? FileState.absent()
            : FileState.read(shown.get()));
        Path inProject = project.resolve(change.path());
        states.add(Files.exists(inProject, LinkOption.NOFOLLOW_LINKS) && !Files.isDirectory(inProject, LinkOption.NOFOLLOW_LINKS)
            ? FileState.read(inProject) : FileState.absent());
      }
      if (paths.isEmpty() && view.empty()) {
        throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "The tab's view holds no changes; there is nothing to discard.");
      }
      List<FileVersion> versions = turn.store(states);
      List<FileChange> changes = new ArrayList<>();
      for (int i = 0; i < paths.size(); i++) {
        if (!versions.get(2 * i).equals(versions.get(2 * i + 1))) {
          changes.add(new FileChange(paths.get(i), versions.get(2 * i), versions.get(2 * i + 1)));
        }
      }
      turn.recordStoredChanges(changes);
      turn.persist(); // under the checkpoint's tag before the view is emptied
      // what it held is under the checkpoint's tag now, until retention drops it: the moved copy is not kept as well
      Path moved = view.discard(viewsRoot.resolveSibling("discarded"));
      View.deleteMoved(moved);
      return changes.stream().map(FileChange::path).toList();
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not discard the tab's view: " + e.getMessage(), e);
    }
  }

  /**
   * Whether a land of {@code tabId}'s view was under way when Waymark was killed, its view already
   * handed to the land's layer (which {@link LayerRecovery} finishes as the tab is opened): then the
   * view, left empty, is removed now, and the tab goes on as a normal tab, as after a land (unless
   * the land was to keep it isolated: then the empty view stays). A land killed before the handover
   * left the view whole, and the tab stays isolated.
   */
  public boolean endedByALand(String tabId, Path viewDir) {
    try {
      Optional<View> view = View.read(viewDir);
      if (view.isEmpty() || !view.get().empty()) {
        return false;
      }
      String owner = tabId + "#";
      for (Layer layer : journal.leftBehind(o -> o.startsWith(owner))) {
        if (layer.bases().isPresent() && !isEmpty(layer.upper())) {
          if (Files.deleteIfExists(viewDir.resolve(KEEPS_ISOLATION))) {
            return false; // the land chose to keep the tab isolated: its view stays, empty
          }
          view.get().delete();
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The tab's view cannot be read: " + e.getMessage(), e);
    }
  }

  private static boolean isEmpty(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (NoSuchFileException gone) {
      return true;
    }
  }

  /** One path the view holds other than the project: each side's bytes (a link's target), null where absent. */
  public record Difference(String path, byte[] project, byte[] view) {}

  /** What the view kept in {@code viewDir} holds that the project does not, path by path. */
  public List<Difference> differences(Path viewDir) {
    View view = read(viewDir);
    try {
      List<Difference> found = new ArrayList<>();
      for (LayerChange change : view.changes().changes()) {
        if (change.kind() == LayerChange.Kind.DIRECTORY) {
          continue;
        }
        byte[] inProject = bytes(project.resolve(change.path()));
        byte[] inView = change.source() == null ? null : bytes(change.source());
        if (!Arrays.equals(inProject, inView)) {
          found.add(new Difference(change.path(), inProject, inView));
        }
      }
      return found;
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The tab's view cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * The paths the view kept in {@code viewDir} holds other than the project whose project file
   * changed since the view first changed them (its base): where a land would have to merge with
   * someone else's edit.
   */
  public List<String> changedUnder(Path viewDir) {
    View view = read(viewDir);
    List<String> changed = new ArrayList<>();
    for (Difference d : differences(viewDir)) {
      if (!view.bases().noted(d.path())) {
        continue;
      }
      byte[] base = view.bases().existed(d.path()) ? view.bases().base(d.path()).orElse(null) : null;
      if (!Arrays.equals(base, d.project())) {
        changed.add(d.path());
      }
    }
    return changed;
  }

  private static byte[] bytes(Path file) throws IOException {
    if (Files.isSymbolicLink(file)) {
      return Files.readSymbolicLink(file).toString().getBytes(StandardCharsets.UTF_8);
    }
    return Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) ? Files.readAllBytes(file) : null;
  }

  /** Removes the view kept in {@code viewDir}: its tab goes on as a normal tab. */
  public void close(Path viewDir) {
    try {
      read(viewDir).delete();
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not remove the tab's view: " + e.getMessage(), e);
    }
  }

  /** Whether the view kept in {@code viewDir} holds any change of the project: a file's, a link's or a directory's. */
  public boolean holdsChanges(Path viewDir) {
    try {
      return !read(viewDir).changes().changes().isEmpty();
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The tab's view cannot be read: " + e.getMessage(), e);
    }
  }

  /** How many files the view kept in {@code viewDir} holds that the project does not. */
  public int differing(Path viewDir) {
    try {
      return read(viewDir).differing();
    } catch (IOException e) {
      return 0;
    }
  }

  private static View read(Path viewDir) {
    try {
      return View.read(viewDir).orElseThrow(() -> new CheckpointException(CheckpointException.Kind.REFUSED, "The tab is not isolated: it has no view."));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The tab's view cannot be read: " + e.getMessage(), e);
    }
  }
}
