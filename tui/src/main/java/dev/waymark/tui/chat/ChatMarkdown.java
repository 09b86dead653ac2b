package dev.waymark.tui.chat;

import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * A tab's conversation as Markdown, for {@code /export-chat}: the checkpoints of the live path as
 * headings ({@code ## #3 · 2026-12-07 14:02}), each with its prompt quoted, the answers as the model
 * wrote them, steering quoted, each tool call on a line of its own, and what a restore or revert
 * did. Turns undone or branched away from are left out, as from the conversation the model has.
 */
public final class ChatMarkdown {
  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm");

  private ChatMarkdown() {}

  /** The Markdown of {@code state}'s live path under {@code title}; what it holds is counted in {@link Export}. */
  public static Export render(TabState state, String title, ZoneId zone) {
    StringBuilder md = new StringBuilder("# ").append(title.isBlank() ? "Waymark conversation" : title.strip())
        .append("\n");
    int heading = -1;
    List<Integer> checkpoints = new ArrayList<>();
    for (Block block : state.blocks()) {
      int n = block.checkpoint();
      if (n <= 0 || n > state.live() || state.rewound(block) || !shown(block)) {
        continue;
      }
      if (n != heading) {
        heading = n;
        checkpoints.add(n);
        md.append("\n## #").append(n);
        if (block instanceof Blocks.Prompt prompt) {
          md.append(" · ").append(WHEN.format(prompt.at().atZone(zone)));
        }
        md.append("\n");
      }
      md.append("\n").append(markdown(block)).append("\n");
    }
    return new Export(md.toString(), checkpoints.size());
  }

  /** The Markdown, and how many checkpoints it has a heading for. */
  public record Export(String markdown, int checkpoints) {}

  private static boolean shown(Block block) {
    return block instanceof Blocks.Prompt || block instanceof Blocks.Steering || block instanceof Blocks.ToolUse
        || block instanceof Blocks.Answer answer && !answer.isEmpty()
        || block instanceof Blocks.Notice notice && notice.text().startsWith("↺ ");
  }

  private static String markdown(Block block) {
    if (block instanceof Blocks.Prompt prompt) {
      return quoted(prompt.text());
    } else if (block instanceof Blocks.Steering steering) {
      return quoted(steering.text()) + "\n>\n> *(steering, sent while the turn ran)*";
    } else if (block instanceof Blocks.Answer answer) {
      return answer.text().strip();
    } else if (block instanceof Blocks.ToolUse call) {
      String line = "- `" + call.name() + "` " + call.summary().strip();
      return call.failed() ? line + " — failed: " + Blocks.firstLine(call.result()) : line;
    }
    return "*" + ((Blocks.Notice) block).text().strip() + "*";
  }

  private static String quoted(String text) {
    return String.join("\n", text.strip().lines().map(l -> l.isEmpty() ? ">" : "> " + l).toList());
  }
}
