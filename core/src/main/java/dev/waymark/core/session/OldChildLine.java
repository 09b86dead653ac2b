package dev.waymark.core.session;

import dev.waymark.core.checkpoint.ChildLink;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The line {@code [subagent tab T, checkpoints: #1, #2]} that ended a {@code task} result in
 * sessions from before a checkpoint kept its child tabs as values: read once when such a session
 * loads, so that its parent checkpoints still move their children; never written.
 */
final class OldChildLine {
  private static final Pattern LINE = Pattern.compile("\\[subagent tab ([A-Za-z0-9_-]{1,64}), checkpoints:([ #0-9,]*)]\\s*$");

  private OldChildLine() {}

  /** The link a tool result ends with, if it ends with one that names a checkpoint. */
  static Optional<ChildLink> in(String result) {
    Matcher m = LINE.matcher(result);
    if (!m.find()) {
      return Optional.empty();
    }
    List<Integer> numbers = new ArrayList<>();
    for (String s : Arrays.stream(m.group(2).split(",")).map(s -> s.replace("#", "").strip()).toList()) {
      if (s.matches("\\d{1,8}") && Integer.parseInt(s) >= 1) {
        numbers.add(Integer.parseInt(s));
      }
    }
    return numbers.isEmpty() ? Optional.empty()
        : Optional.of(new ChildLink(m.group(1), Collections.min(numbers), Collections.max(numbers), false));
  }
}
