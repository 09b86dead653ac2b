package dev.waymark.tui.run;

import dev.waymark.core.checkpoint.CheckpointDiff;
import dev.waymark.core.checkpoint.RescuedVersions;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.tui.keys.Host;
import dev.waymark.tui.tab.TabController;
import dev.waymark.tui.text.DiffLines;
import dev.waymark.tui.text.Tone;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** {@code /checkpoint rescued}: the versions a {@code --force} overwrote, listed, or one shown against the disk. */
final class RescuedReport {
  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  private RescuedReport() {}

  /** {@code name} null: the list; else how the disk differs from what was rescued, in a panel. The store is only read. */
  static void show(TabController tab, String name, Host host) {
    try {
      var tree = tab.session().checkpoints();
      if (name == null) {
        tab.state().notice(Tone.NORMAL, String.join("\n", lines(tree.rescued().list())));
        return;
      }
      RescuedVersions.Rescued found = tree.rescued().find(name);
      CheckpointDiff diff = tree.rescuedDiff(name);
      if (diff.files().isEmpty()) {
        tab.state().notice(Tone.MUTED, "The files on disk already are as rescued under " + found.name() + " ("
            + String.join(", ", found.files()) + ").");
        return;
      }
      host.showPanel("Rescued " + found.name() + ": the disk (+) against what was rescued (-) · " + found.why(),
          width -> DiffLines.render(diff.unified(), width));
    } catch (CheckpointException e) {
      tab.state().notice(Tone.ERROR, "✗ " + e.getMessage());
    }
  }

  static List<String> lines(List<RescuedVersions.Rescued> all) {
    if (all.isEmpty()) {
      return List.of("Nothing rescued in this tab: a --force that overwrites your edits keeps them under a rescued tag.");
    }
    List<String> lines = new ArrayList<>(List.of("Rescued versions, newest first (/checkpoint rescued NAME shows one, "
        + "… NAME restore puts it back as a new checkpoint):"));
    for (RescuedVersions.Rescued r : all) {
      lines.add("  " + r.name() + "  " + TIME.format(r.at()) + "  " + r.why() + ": " + String.join(", ", r.files()));
    }
    return lines;
  }
}
