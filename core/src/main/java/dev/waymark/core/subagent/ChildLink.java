package dev.waymark.core.subagent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which tab a {@code task} call's subagent ran in and which checkpoints it made there, kept as the last line
 * of the call's result: the result is a message of the parent's checkpoint, so the record is saved and
 * brought back with it, and an undo of that checkpoint knows what to take back in the child.
 */
public record ChildLink(String childTab, List<Integer> checkpoints) {
  private static final Pattern LINE = Pattern.compile("\\[subagent tab (\\S+), checkpoints:([ #0-9,]*)]\\s*$");

  public ChildLink {
    checkpoints = List.copyOf(checkpoints);
  }

  /** The line a result ends with. */
  public String line() {
    return "[subagent tab " + childTab + ", checkpoints:"
        + String.join(",", checkpoints.stream().map(n -> " #" + n).toList()) + "]";
  }

  /** The link a tool result ends with, if it ends with one. */
  public static Optional<ChildLink> in(String result) {
    Matcher m = LINE.matcher(result);
    if (!m.find()) {
      return Optional.empty();
    }
    List<Integer> numbers = new ArrayList<>();
    Arrays.stream(m.group(2).split(",")).map(s -> s.replace("#", "").strip()).filter(s -> !s.isEmpty())
        .forEach(s -> numbers.add(Integer.parseInt(s)));
    return Optional.of(new ChildLink(m.group(1), numbers));
  }
}
