package dev.waymark.core.wording;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandSlot;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import dev.waymark.core.protocol.ChildFiles;
import dev.waymark.core.protocol.ChildRestore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The sentences that tell the user (and the model) what became of a command's changes, written
 * from the values the checkpoint engine returns: the engine says what happened, this says it in
 * words, so the words can change without the engine.
 */
public final class Wording {
  /** How shell commands' changes are found, for {@code /status}, given why they have no layer each (empty: they have). */
  public static String shellCapture(Optional<String> noLayer) {
    return noLayer.isEmpty()
        ? "each in a copy-on-write layer of its own: a checkpoint holds exactly what the command wrote, and tabs' "
            + "commands run at once"
        : "found by comparing the project before and after each command (no layer: " + noLayer.get()
            + "); tabs' commands take turns";
  }

  /** The process that holds the shell-command slot, as a waiting command names it in its result. */
  public static String slotHolder(CommandSlot.Holder holder) {
    if (holder.thisProcess()) {
      return "another tab of this Waymark";
    }
    return "Waymark process " + holder.pid() + (holder.stopped() ? ", stopped by Ctrl+Z or SIGSTOP, which holds the "
        + "project's shell commands until it is resumed with 'fg' or 'kill -CONT " + holder.pid() + "', or ended" : "");
  }

  /** The label of a {@code waymark shell}'s checkpoint: the name the user gave, else its last command. */
  public static String shellLabel(Optional<String> name, Optional<String> lastCommand) {
    return name.orElseGet(() -> "shell" + lastCommand.map(c -> ": " + c).orElse(""));
  }

  /** What the model reads of a {@code waymark shell}'s checkpoint: that the user changed these files themselves. */
  public static String shellNote(WorkTreeChanges recorded) {
    List<String> paths = recorded.recorded().stream().map(c -> c.path()).toList();
    return "The user changed files in this tab's view themselves, in a shell (not a tool call of yours): "
        + String.join(", ", paths) + ".";
  }

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
    return switch (way) {
      case LAYERED -> " in the command's layer; the files they change are applied and recorded at the next command or "
          + "when the turn ends";
      case VIEWED -> " when it ended: stopped, as an isolated tab's command ends whole (nothing writes in its view after "
          + "its checkpoint); what they wrote before is recorded with it";
      case COMPARED -> "; the files they change are recorded at the next command or when the turn ends";
    };
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
    return "[" + count + " of the command's " + (count == 1 ? "file change" : "file changes") + " not applied, the project's kept: see below]\n";
  }

  /** A restore's one-line account for a user (a checkpoint's {@code summary} in the protocol). */
  public static String restored(RestoreResult r) {
    if (r.applied() && r.view().isPresent()) {
      return ViewWording.of(r, r.view().get());
    }
    if (!r.applied()) {
      return "Nothing " + (r.action().startsWith("Reverted") ? "reverted" : "restored") + ": "
          + Counted.of(r.conflicts().size(), "file was changed since by someone else and clashes",
              "files were changed since by someone else and clash") + " with #" + r.target() + ": "
          + String.join(", ", r.conflicts())
          + ". Resolve them, or repeat with --force (what is on disk now is kept under a rescued tag).";
    }
    if (r.written().isEmpty() && r.merged().isEmpty() && r.conflicts().isEmpty() && r.action().startsWith("Restored the conversation")) {
      return r.action() + "; the files stay as they are.";
    }
    // a file taken away is not "written": say which of the two each was, each file once
    List<String> deletedByForce = r.conflicts().stream().filter(r.deleted()::contains).toList();
    long put = r.written().stream().filter(p -> !r.deleted().contains(p) && !r.conflicts().contains(p)).count();
    long gone = r.deleted().stream().filter(p -> !r.conflicts().contains(p)).count();
    List<String> parts = new ArrayList<>();
    if (put > 0) {
      parts.add(put + (put == 1 ? " file written" : " files written"));
    }
    if (gone > 0) {
      parts.add(gone + (gone == 1 ? " file deleted" : " files deleted"));
    }
    if (!r.merged().isEmpty()) {
      parts.add(r.merged().size() + " merged with later edits (" + String.join(", ", r.merged()) + ")");
    }
    int overwritten = r.conflicts().size() - deletedByForce.size();
    if (overwritten > 0) {
      parts.add(overwritten + " overwritten by force");
    }
    if (!deletedByForce.isEmpty()) { // a created file a revert takes away, though the user had changed it
      parts.add(deletedByForce.size() + " deleted by force");
    }
    if (!r.conflicts().isEmpty()) {
      parts.set(parts.size() - 1, parts.get(parts.size() - 1) + " (kept under " + r.rescueTag().orElse("?") + ")");
    }
    return r.action() + ": " + (parts.isEmpty() ? "no file changed" : String.join(", ", parts)) + ".";
  }

  /**
   * A parent's restore with what it did in the child tabs that moved with it: the files counted over
   * every tab, then which tab holds how many, the user's own turns in a child that moved too, children
   * stopped, and any that did not move ("Restored #0: 4 files deleted (2 in ↳2 alpha, 2 in ↳2 beta;
   * your turn #2 in ↳2 alpha undone too).").
   */
  public static String restored(RestoreResult r, List<ChildRestore> children) {
    Optional<ChildRestore> refused = children.stream().filter(ChildRestore::refused).findFirst();
    if (refused.isPresent()) {
      ChildFiles f = refused.get().result().orElseThrow();
      return "Nothing restored in any tab: in " + childTab(refused.get()) + ", " + Counted.of(f.conflicts().size(),
          "file was changed since by someone else and clashes", "files were changed since by someone else and clash")
          + " with its #" + f.target() + ": " + String.join(", ", f.conflicts())
          + ". Resolve them, or repeat with --force (what is on disk now is kept under a rescued tag).";
    }
    if (children.isEmpty() || !r.applied()) {
      return restored(r);
    }
    List<String> written = new ArrayList<>(r.written());
    List<String> deleted = new ArrayList<>(r.deleted());
    List<String> merged = new ArrayList<>(r.merged());
    List<String> conflicts = new ArrayList<>(r.conflicts());
    Map<String, Integer> inChildren = new TreeMap<>(); // by the tab's label: the same order whichever finished first
    int own = r.written().size() + r.merged().size() + r.conflicts().size();
    List<String> notes = new ArrayList<>();
    Optional<String> rescued = r.rescueTag();
    for (ChildRestore child : children) {
      String tab = childTab(child);
      child.result().filter(o -> o.applied()).ifPresent(o -> {
        o.written().forEach(p -> written.add(child.tab() + ":" + p)); // a path per tab: the same file twice counts twice
        o.deleted().forEach(p -> deleted.add(child.tab() + ":" + p));
        merged.addAll(o.merged()); // named as they are
        o.conflicts().forEach(p -> conflicts.add(child.tab() + ":" + p));
        int files = o.written().size() + o.merged().size() + o.conflicts().size();
        if (files > 0) {
          inChildren.merge(tab, files, Integer::sum);
        }
      });
      if (rescued.isEmpty()) {
        rescued = child.result().flatMap(o -> o.rescueTag());
      }
      if (!child.ownTurns().isEmpty()) {
        notes.add("your " + (child.ownTurns().size() == 1 ? "turn " : "turns ") + String.join(", ",
            child.ownTurns().stream().map(n -> "#" + n).toList()) + " in " + tab + (child.back() ? " undone too" : " redone too"));
      }
      if (child.stopped() || child.withdrawn()) {
        notes.add(tab + (child.stopped() ? " stopped" : "") + (child.stopped() && child.withdrawn() ? " and" : "")
            + (child.withdrawn() ? " no longer waits for approval" : ""));
      }
      switch (child.state()) {
        case NOT_OPEN -> notes.add("tab " + child.tab() + " is not open here and did not move");
        case FAILED -> notes.add(tab + " did not move: " + child.result().map(o -> o.summary()).orElse(child.failure()));
        default -> { }
      }
    }
    String counted = restored(new RestoreResult(true, r.from(), r.target(), written, merged, conflicts, rescued,
        r.livePath(), deleted, r.action()));
    List<String> details = new ArrayList<>(notes);
    if (!inChildren.isEmpty()) {
      List<String> where = new ArrayList<>();
      if (own > 0) {
        where.add(own + " here");
      }
      inChildren.forEach((tab, files) -> where.add(files + " in " + tab));
      details.add(0, String.join(", ", where));
    }
    String detail = String.join("; ", details);
    if (detail.isEmpty()) {
      return counted;
    }
    return counted.endsWith(").") ? counted.substring(0, counted.length() - 2) + "; " + detail + ")." // one parenthesis
        : counted.substring(0, counted.length() - 1) + " (" + detail + ").";
  }

  /** A child tab as the tab bar shows it: ↳ and its parent's number, then its title, cut short. */
  private static String childTab(ChildRestore child) {
    String title = child.title().length() > 30 ? child.title().substring(0, 29) + "…" : child.title();
    return child.parentNumber() > 0 ? "↳" + child.parentNumber() + (title.isEmpty() ? "" : " " + title) : "tab " + child.tab();
  }
}
