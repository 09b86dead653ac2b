package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.ViewLanding;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * An isolated tab's own acts on its view, for its {@link CheckpointTree}: counted, landed on the
 * project, discarded, and diffed against the project. Each land or discard is a new checkpoint.
 */
final class TabIsolation {
  private final TreeHost tree;

  TabIsolation(TreeHost tree) {
    this.tree = tree;
  }

  /** How many files the isolated tab's view holds that the project does not; 0 for a tab that is not isolated. */
  int viewDiffers() {
    return tree.parts().view().map(dir -> tree.parts().layers().views().differing(dir)).orElse(0);
  }

  /**
   * Whether the isolated tab's view holds any change a land would apply (a new or removed empty
   * directory too, which {@link #viewDiffers} does not count); false for a tab that is not isolated.
   */
  boolean holdsChanges() {
    return tree.parts().view().map(dir -> tree.parts().layers().views().holdsChanges(dir)).orElse(false);
  }

  /**
   * Lands the isolated tab's view on the project as a new checkpoint (what the project held before,
   * what the tab made after). The tab then goes on as a normal tab (undo of the land then acts on
   * the project: it takes the land back out), or with {@code keepIsolated} as an isolated tab with
   * the view left empty over the landed project (undo acts on the view, as always in an isolated
   * tab: the project changes only when the tab lands).
   */
  ViewLanding.Landed land(boolean keepIsolated) {
    Path view = tree.parts().view().orElseThrow(() -> new CheckpointException(CheckpointException.Kind.REFUSED, "Tab " + tree.tabId() + " is not isolated; there is "
        + "nothing to land."));
    tree.requireIdle("land");
    if (!tree.parts().layers().views().holdsChanges(view)) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "The view of tab " + tree.tabId() + " holds no changes; there is nothing to land.");
    }
    ViewLanding views = tree.parts().layers().views();
    List<ViewLanding.Held> held = views.held(view);
    Turn turn = tree.begin();
    ViewLanding.Landed landed;
    try {
      turn.node.land = record(turn, held, keepIsolated);
      landed = views.land(turn, view, keepIsolated);
    } catch (RuntimeException e) {
      turn.finish(CheckpointStatus.FAILED);
      throw e;
    }
    turn.finish(CheckpointStatus.DONE);
    landed = withMerged(landed, turn);
    if (landed.landed().isEmpty() && landed.merged().isEmpty() && !landed.notLanded().isEmpty()) {
      // all of it set aside: the tab stays isolated, its view as it was, to be landed once the clashes are resolved
      views.reopen(tree.tabId(), held);
    } else if (!keepIsolated) {
      views.close(view);
      tree.leaveView();
    }
    return landed;
  }

  /** {@code landed} naming the paths the project got other than the view held them: merged with the project's later edits. */
  private static ViewLanding.Landed withMerged(ViewLanding.Landed landed, Turn turn) {
    Map<String, FileVersion> inView = new HashMap<>();
    turn.node.land.view().forEach(entry -> inView.put(entry.path(), entry.inView()));
    List<String> merged = new ArrayList<>();
    for (FileChange change : turn.changes()) {
      FileVersion held = inView.get(change.path());
      if (landed.landed().contains(change.path()) && held != null && change.after().exists()
          && !change.after().blob().equals(held.blob())) {
        merged.add(change.path());
      }
    }
    List<String> written = landed.landed().stream().filter(p -> !merged.contains(p)).toList();
    return new ViewLanding.Landed(written, landed.deleted(), merged, landed.notLanded(), landed.rescueTag());
  }

  /** The view {@code held} before the land, its versions and bases stored in {@code turn}'s checkpoint as values. */
  private static LandRecord record(Turn turn, List<ViewLanding.Held> held, boolean keepIsolated) {
    List<FileState> states = new ArrayList<>();
    for (ViewLanding.Held h : held) {
      states.add(h.view());
      states.add(h.baseKnown() && h.base() != null ? FileState.regular(h.base()) : FileState.absent());
    }
    List<FileVersion> versions = turn.store(states);
    List<LandRecord.ViewEntry> entries = new ArrayList<>();
    for (int i = 0; i < held.size(); i++) {
      ViewLanding.Held h = held.get(i);
      entries.add(new LandRecord.ViewEntry(h.path(), versions.get(2 * i),
          h.baseKnown() ? Optional.of(versions.get(2 * i + 1)) : Optional.empty()));
    }
    return new LandRecord(keepIsolated, entries);
  }

  /**
   * Empties the isolated tab's view, as a new checkpoint of the view going back to the project:
   * undo brings what it held back. Returns the paths it held.
   */
  List<String> discard() {
    Path view = tree.parts().view().orElseThrow(() -> new CheckpointException(CheckpointException.Kind.REFUSED, "Tab " + tree.tabId() + " is not isolated; there is "
        + "nothing to discard."));
    tree.requireIdle("discard");
    if (!tree.parts().layers().views().holdsChanges(view)) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "The view of tab " + tree.tabId() + " holds no changes; there is nothing to discard.");
    }
    Turn turn = tree.begin();
    List<String> paths;
    try {
      paths = tree.parts().layers().views().discard(turn, view);
    } catch (RuntimeException e) {
      turn.finish(CheckpointStatus.FAILED);
      throw e;
    }
    turn.finish(CheckpointStatus.DONE);
    return paths;
  }

  /**
   * How the isolated tab's view differs from the project, as unified diffs (the project's side
   * first); empty for a tab that is not isolated, "" for a view that holds nothing.
   */
  Optional<String> viewDiff() {
    return viewFiles().map(files -> files.stream().map(ViewFileDiff::unified).collect(Collectors.joining()));
  }

  /** {@link #viewDiff} path by path: empty for a tab that is not isolated, an empty list for a view that holds nothing. */
  Optional<List<ViewFileDiff>> viewFiles() {
    Optional<Path> view = tree.parts().view();
    if (view.isEmpty()) {
      return Optional.empty();
    }
    List<ViewFileDiff> files = new ArrayList<>();
    for (ViewLanding.Difference d : tree.parts().layers().views().differences(view.get())) {
      String before = text(d.project());
      String after = text(d.view());
      boolean binary = (d.project() != null && before == null) || (d.view() != null && after == null);
      files.add(ViewFileDiff.of(d.path(), before, after, binary));
    }
    return Optional.of(files);
  }

  /** UTF-8 text, or null (absent, or not text). */
  private static String text(byte[] bytes) {
    if (bytes == null) {
      return null;
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException binary) {
      return null;
    }
  }
}
