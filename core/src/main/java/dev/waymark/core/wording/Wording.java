package dev.waymark.core.wording;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The sentences that tell the user (and the model) what became of a command's changes, written
 * from the values the checkpoint engine returns: the engine says what happened, this says it in
 * words, so the words can change without the engine.
 */
public final class Wording {
  /** How many files a background notice names; the rest are counted. */
  private static final int BACKGROUND_SHOWN = 5;

  private Wording() {}

  /** The notice that background processes of a command ended and what they wrote was {@code settled}, recorded in {@code checkpoint}. */
  public static String backgroundEnded(WorkTreeChanges settled, int checkpoint) {
    List<String> said = new ArrayList<>();
    for (var change : settled.recorded()) {
      said.add((!change.before().exists() ? "created " : !change.after().exists() ? "deleted " : "modified ")
          + change.path());
    }
    for (var skipped : settled.skipped()) {
      said.add(skipped.path() + " (" + skipped.reason() + ")");
    }
    int shown = Math.min(said.size(), BACKGROUND_SHOWN);
    return "Background processes of a shell command ended; what they wrote is applied"
        + (settled.recorded().isEmpty() ? "" : " and recorded in #" + checkpoint) + ": "
        + String.join(", ", said.subList(0, shown))
        + (said.size() > shown ? " and " + (said.size() - shown) + " more" : "") + ".";
  }

  /** Why a command (or a hook) captured {@code way} was not run, when taking its start failed with {@code e}. */
  public static String whyNotRun(CommandCapture.Way way, CheckpointException e) {
    return switch (way) {
      case COMPARED -> "its file changes could not be made undoable (" + e.getMessage() + ")";
      case LAYERED -> "its copy-on-write layer could not be made (" + e.getMessage() + ")";
      case VIEWED -> "its tab's view could not be read (" + e.getMessage() + ")";
    };
  }

  /** Why a command captured {@code way} that ended never ran: what isolates it could not be mounted. */
  public static String neverRan(CommandCapture.Way way) {
    return switch (way) {
      case LAYERED -> "the command did not run: its copy-on-write layer could not be mounted; run it again, and it runs "
          + "with its changes found by comparing the files before and after";
      case VIEWED -> "the command did not run: the tab's copy-on-write view could not be mounted";
      case COMPARED -> "the command did not run";
    };
  }

  /** What to tell the caller when recording the changes of a command captured {@code way} failed with {@code e}. */
  public static String whyNotRecorded(CommandCapture.Way way, CheckpointException e) {
    return switch (way) {
      case COMPARED -> "could not record the files this command changed: " + e.getMessage() + "; undo will not restore them";
      case LAYERED -> e.getMessage();
      case VIEWED -> e.getMessage() + "; the command's changes stay in the tab's view, not recorded";
    };
  }

  /** What becomes of what processes a command captured {@code way} left running change, said after "N background process(es) still running". */
  public static String leftRunningNote(CommandCapture.Way way) {
    return way == CommandCapture.Way.LAYERED
        ? " in the command's layer; the files they change are applied and recorded at the next command or when the turn ends"
        : "; the files they change are recorded at the next command or when the turn ends";
  }

  /**
   * The paragraph that lists a command's changes that were not applied as the project's own
   * versions clashed ({@code whys}, one a line), kept under {@code rescueTag}.
   */
  public static String notApplied(List<String> whys, Optional<String> rescueTag) {
    StringBuilder out = new StringBuilder("Not applied: changed in the project by the user or another tab while the "
        + "command ran (theirs is kept; the command's version is in this checkpoint and under the tag ")
        .append(rescueTag.orElse("")).append("):\n");
    whys.forEach(why -> out.append("  ").append(why).append('\n'));
    return out.toString();
  }

  /** The line a one-line view of the result shows first when {@code count} changes were not applied. */
  public static String notAppliedHeadline(int count) {
    return "[" + count + " of the command's file change(s) not applied, the project's kept: see below]\n";
  }
}
