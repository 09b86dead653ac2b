package dev.waymark.app;

import dev.waymark.core.Counted;
import dev.waymark.core.bisect.BisectResult;
import dev.waymark.core.bisect.BisectStep;
import dev.waymark.core.checkpoint.CheckpointDiff;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The lines a bisect prints: one per checkpoint tested, then what it found. */
final class BisectLines {
  private BisectLines() {}

  static String step(BisectStep step) {
    String exit = step.exitStatus() == -1 ? "timed out" : step.exitStatus() == -2 ? "not run" : "exit " + step.exitStatus();
    return String.format(Locale.ROOT, "  #%-4d %-5s (%s; layer: %s, %d deleted, made in %d ms; ran %d ms)",
        step.checkpoint(), step.verdict().name().toLowerCase(Locale.ROOT), exit, Counted.of(step.written(), "file"), step.deleted(),
        step.prepareMillis(), step.runMillis());
  }

  /** {@code sameTab}: the options that make the revert it advises act on the bisected tab. */
  static List<String> result(BisectResult result, Map<Integer, String> prompts, CheckpointDiff diff, String sameTab) {
    List<String> lines = new ArrayList<>();
    lines.add(result.message());
    if (result.outcome() == BisectResult.Outcome.AMBIGUOUS) {
      for (int n : result.candidates()) {
        lines.add("  #" + n + "  " + firstLine(prompts.getOrDefault(n, "")));
      }
    }
    if (result.firstBad().isEmpty()) {
      return lines;
    }
    int n = result.firstBad().getAsInt();
    lines.add("Prompt of #" + n + ": " + firstLine(prompts.getOrDefault(n, "")));
    result.steps().stream().filter(s -> s.checkpoint() == n && !s.outputTail().isBlank()).findFirst().ifPresent(s -> {
      lines.add("Output at #" + n + " (last lines):");
      s.outputTail().lines().forEach(line -> lines.add("  " + line));
    });
    if (diff.isEmpty()) {
      lines.add("#" + n + " changed no files.");
    } else {
      lines.add("What #" + n + " changed:");
      lines.addAll(diff.unified().lines().toList());
    }
    lines.add("Take it back, keeping the later changes: /revert " + n + " in the interface, or `" + revert(n, sameTab)
        + "`.");
    return lines;
  }

  static String revert(int n, String sameTab) {
    return "waymark checkpoints revert " + n + " " + sameTab;
  }

  private static String firstLine(String prompt) {
    String line = prompt.strip().lines().findFirst().orElse("");
    return line.isEmpty() ? "(no prompt)" : line;
  }
}
