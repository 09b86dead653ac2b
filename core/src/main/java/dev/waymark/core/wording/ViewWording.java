package dev.waymark.core.wording;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.RestoreResult;
import dev.waymark.core.checkpoint.ViewAct;
import java.util.ArrayList;
import java.util.List;

/**
 * The sentences of a land, a discard, and an undo or redo of a land: what happened to the project,
 * then what to the tab's view, each from the result's values.
 */
final class ViewWording {
  private ViewWording() {}

  static String of(RestoreResult r, ViewAct act) {
    return switch (act.kind()) {
      case LANDED -> landed(r, act);
      case DISCARDED -> "Discarded the view as #" + act.checkpoint() + ": the project did not change; "
          + Counted.of(act.viewFiles(), "file", "files") + " of the view dropped (" + String.join(", ", r.written())
          + "). The tab stays isolated, its view empty; undo brings them back.";
      case LAND_UNDONE -> "Restored #" + r.target() + ": the land #" + act.checkpoint() + " is taken back out of the project ("
          + project(r) + "). The tab is isolated again, its view as before the land ("
          + Counted.of(act.viewFiles(), "file", "files") + ").";
      case LANDED_AGAIN -> "Restored #" + r.target() + ": landed again (" + project(r) + "). " + after(act, false);
    };
  }

  private static String landed(RestoreResult r, ViewAct act) {
    List<String> parts = new ArrayList<>();
    long put = r.written().stream().filter(p -> !r.deleted().contains(p)).count();
    if (put > 0) {
      parts.add(Counted.of(put, "file", "files") + " written");
    }
    if (!r.deleted().isEmpty()) {
      parts.add(Counted.of(r.deleted().size(), "file", "files") + " deleted");
    }
    if (!r.merged().isEmpty()) {
      parts.add(r.merged().size() + " merged with the project's later edits (" + String.join(", ", r.merged()) + ")");
    }
    String setAside = act.setAside().isEmpty() ? ""
        : " " + String.join(", ", act.setAside()) + (act.setAside().size() == 1 ? " was" : " were")
            + " changed in the project since the tab first changed " + (act.setAside().size() == 1 ? "it" : "them")
            + (act.setAside().size() == 1 ? ": the project's version is kept, the tab's" : ": the project's versions are kept, the tab's")
            + " set aside under " + r.rescueTag().orElse("a rescued tag") + ".";
    boolean nothing = parts.isEmpty() && !act.setAside().isEmpty();
    String head = nothing ? "Landed nothing (#" + act.checkpoint() + "):"
        : "Landed the view as #" + act.checkpoint() + ": " + (parts.isEmpty() ? "the project already held it"
            : "on the project, " + String.join(", ", parts)) + ".";
    return head + setAside + " " + after(act, nothing);
  }

  private static String after(ViewAct act, boolean nothingLanded) {
    if (!act.isolated()) {
      return "The tab now works on the project itself.";
    }
    return nothingLanded ? "The tab stays isolated, its view as it was: resolve the clash, then land again."
        : "The tab stays isolated, its view empty over the landed project.";
  }

  private static String project(RestoreResult r) {
    long put = r.written().stream().filter(p -> !r.deleted().contains(p)).count();
    List<String> parts = new ArrayList<>();
    if (put > 0) {
      parts.add(Counted.of(put, "file", "files") + " written");
    }
    if (!r.deleted().isEmpty()) {
      parts.add(Counted.of(r.deleted().size(), "file", "files") + " deleted");
    }
    if (!r.merged().isEmpty()) {
      parts.add(r.merged().size() + " merged with later edits (" + String.join(", ", r.merged()) + ")");
    }
    if (!r.conflicts().isEmpty()) {
      parts.add(r.conflicts().size() + " overwritten by force (kept under " + r.rescueTag().orElse("?") + ")");
    }
    return parts.isEmpty() ? "no file of the project changed" : String.join(", ", parts);
  }
}
