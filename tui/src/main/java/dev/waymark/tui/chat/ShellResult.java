package dev.waymark.tui.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A {@code run_shell} result read back for the chat: what the command printed, how it ended
 * ({@code [exit code N]}, cancelled, timed out: not output, so never counted as a line of it), and
 * the files it changed, as the tool reports them ("Files changed (recorded; …):" and "Changed but
 * not recorded (…):", one indented line per file).
 */
record ShellResult(List<String> output, List<String> status, List<String> changed, List<String> notRecorded) {
  static final String CHANGED = "Files changed (recorded";
  static final String NOT_RECORDED = "Changed but not recorded";
  private static final Pattern STATUS =
      Pattern.compile("\\[(exit code -?\\d+|cancelled: .*|timed out after .*)]");

  /** True when the command ended with exit code 0 (or its status is unknown): nothing worth saying when folded. */
  boolean succeeded() {
    return status.isEmpty() || status.equals(List.of("[exit code 0]"));
  }

  static ShellResult parse(String result) {
    List<String> output = new ArrayList<>();
    List<String> status = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    List<String> notRecorded = new ArrayList<>();
    List<String> into = output;
    for (String line : result.strip().split("\n", -1)) {
      if (line.startsWith(CHANGED)) {
        into = changed;
      } else if (line.startsWith(NOT_RECORDED)) {
        into = notRecorded;
      } else if (into != output && line.startsWith("  ")) {
        into.add(line.strip());
      } else if (STATUS.matcher(line).matches()) {
        into = output;
        status.add(line);
      } else {
        into = output;
        output.add(line);
      }
    }
    return new ShellResult(List.copyOf(output), List.copyOf(status), List.copyOf(changed), List.copyOf(notRecorded));
  }
}
