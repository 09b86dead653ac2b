package dev.waymark.tui.chat;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@code run_shell} result read back for the chat: what the command printed, its status line,
 * and the files it changed, as the tool reports them ("Files changed (recorded; …):" and
 * "Changed but not recorded (…):", one indented line per file).
 */
record ShellResult(List<String> output, List<String> changed, List<String> notRecorded) {
  static final String CHANGED = "Files changed (recorded";
  static final String NOT_RECORDED = "Changed but not recorded";

  static ShellResult parse(String result) {
    List<String> output = new ArrayList<>();
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
      } else {
        into = output;
        output.add(line);
      }
    }
    return new ShellResult(List.copyOf(output), List.copyOf(changed), List.copyOf(notRecorded));
  }
}
