package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.layer.ApplyPlan;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import dev.waymark.core.layer.LayerJournal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The layers a killed Waymark left, finished when their tab is brought back (as {@link ShellRecovery} does for observed commands). */
final class LayerRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(LayerRecovery.class);

  private final Path root;
  private final LayerRecording recording;

  LayerRecovery(Path layersRoot, LayerRecording recording) {
    this.root = layersRoot;
    this.recording = recording;
  }

  /**
   * Finishes the layers a killed Waymark left in {@code tree}'s tab (during a command or its apply):
   * stops what still runs with the command's mark, then records and applies what each layer holds
   * into its checkpoint (or a new one, if that checkpoint was never kept), and says so.
   */
  List<String> recover(TabHistory tree) {
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
        ApplyPlan plan = plan(layer);
        boolean finishing = plan != null;
        LayerRecording.Outcome outcome;
        String where;
        if (tree.has(checkpoint)) {
          LayerRecording.Outcome[] done = {null};
          tree.amend(checkpoint, turn -> {
            done[0] = applyOrFinish(turn, layer, plan);
            return done[0].changes();
          });
          outcome = done[0];
          where = "checkpoint #" + checkpoint;
        } else {
          LayerRecording.Outcome[] done = {null};
          int number = tree.inNewCancelled(turn -> {
            done[0] = applyOrFinish(turn, layer, plan);
            return turn.number();
          });
          outcome = done[0];
          where = "new checkpoint #" + number;
        }
        int count = outcome.changes().recorded().size();
        report.add("the shell command of checkpoint #" + checkpoint + " was interrupted when Waymark stopped"
            + (finishing ? " while its changes were applied; the rest were applied now, and its " + Counted.of(count, "file change")
                + (count == 1 ? " is" : " are") + " recorded in " + where
                : "; its " + Counted.of(count, "file change") + (count == 1 ? " was" : " were") + " applied now and are recorded in " + where)
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

  /**
   * An apply a kill stopped part way is finished from its plan (what it already made is not read
   * again as the project's own); a layer without one had nothing made yet, and is applied whole.
   */
  private LayerRecording.Outcome applyOrFinish(TabRecords turn, Layer layer, ApplyPlan plan) {
    return plan != null ? recording.finishInterrupted(turn, layer, plan)
        : recording.applyAndRecord(turn, layer, Set.of(".waymark"), Long.MAX_VALUE, new LayerApply.SoFar(), false);
  }

  private static ApplyPlan plan(Layer layer) {
    try {
      return ApplyPlan.read(layer);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read how far the command's changes were applied (" + e.getMessage() + ")", e);
    }
  }
}
