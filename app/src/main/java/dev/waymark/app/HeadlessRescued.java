package dev.waymark.app;

import dev.waymark.core.checkpoint.CheckpointDiff;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RescuedVersions;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code waymark checkpoints rescued [NAME]}: the tab's rescued versions listed, or one against the disk; only read. */
final class HeadlessRescued {
  private HeadlessRescued() {}

  /** Prints; returns the exit status (1: no such rescued version). */
  static int print(CheckpointTree tree, String name, boolean json, PrintWriter out, PrintWriter err) throws Exception {
    try {
      if (name == null) {
        List<RescuedVersions.Rescued> all = tree.rescued().list();
        if (json) {
          out.println(JsonOutput.JSON.writeValueAsString(all.stream().map(HeadlessRescued::row).toList()));
        } else if (all.isEmpty()) {
          out.println("Nothing rescued in this tab.");
        } else {
          all.forEach(r -> out.println(r.name() + "  " + r.at() + "  " + r.why() + ": " + String.join(", ", r.files())));
        }
        return 0;
      }
      RescuedVersions.Rescued found = tree.rescued().find(name);
      CheckpointDiff diff = tree.rescuedDiff(name);
      if (json) {
        Map<String, Object> o = row(found);
        o.put("diff", diff.unified());
        out.println(JsonOutput.JSON.writeValueAsString(o));
      } else {
        out.println(found.why() + " (" + found.ref() + "); the disk (+) against what was rescued (-):");
        out.print(diff.files().isEmpty() ? "the files on disk already are so\n" : diff.unified());
      }
      out.flush();
      return 0;
    } catch (CheckpointException e) {
      err.println("waymark: " + e.getMessage());
      return 1;
    }
  }

  private static Map<String, Object> row(RescuedVersions.Rescued r) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("name", r.name());
    o.put("ref", r.ref());
    o.put("at", r.at().toString());
    o.put("why", r.why());
    o.put("files", r.files());
    return o;
  }
}
