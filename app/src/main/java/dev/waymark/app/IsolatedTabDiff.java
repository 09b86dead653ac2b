package dev.waymark.app;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.ViewFileDiff;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code waymark checkpoints diff} of an isolated tab: how its view differs from the project (what
 * a land would apply), rather than how the files differ from the live checkpoint, in text or as
 * JSON ({@code {"isolated": true, "files": [{path, added, removed, binary, unified}]}}); with
 * {@code --stat}, a line per file (JSON without {@code unified}). Its own
 * code path, apart from the diffs between checkpoints.
 */
final class IsolatedTabDiff {
  private IsolatedTabDiff() {}

  /** Prints the view's diff against the project when {@code tab} is isolated (as JSON with {@code json}); empty when it is not. */
  static Optional<Integer> print(TabSession tab, boolean json, boolean stat, PrintWriter out) throws IOException {
    Optional<List<ViewFileDiff>> files = tab.checkpoints().viewFiles();
    if (files.isEmpty()) {
      return Optional.empty();
    }
    if (json) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("isolated", true);
      o.put("files", files.get().stream().map(f -> stat
          ? Map.of("path", f.path(), "added", f.added(), "removed", f.removed(), "binary", f.binary())
          : Map.of("path", f.path(), "added", f.added(), "removed", f.removed(), "binary", f.binary(),
              "unified", f.unified())).toList());
      out.println(JsonOutput.JSON.writeValueAsString(o));
    } else if (files.get().isEmpty()) {
      out.println("The isolated tab's view holds no changes: it is the project as it is now.");
    } else if (stat) {
      out.print(CheckpointsDiff.stat(files.get().stream()
          .map(f -> new CheckpointsDiff.StatRow(f.path(), f.added(), f.removed(), f.binary())).toList()));
      out.flush();
    } else {
      files.get().forEach(f -> out.print(f.unified()));
      out.flush(); // print does not flush, and the process ends with the command
    }
    return Optional.of(0);
  }
}
