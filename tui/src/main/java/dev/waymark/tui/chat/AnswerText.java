package dev.waymark.tui.chat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What {@code /copy} takes: the last answer of a tab (of the checkpoint viewed, when one is), and
 * its fenced code blocks, numbered from 1 in the order they come.
 *
 * @param checkpoint the checkpoint it answered
 * @param text the answer as the model wrote it
 */
public record AnswerText(int checkpoint, String text) {
  /** A fenced code block: its language (empty when none is named) and its lines, without the fences. */
  public record CodeBlock(String language, String code) {}

  /** The last non-empty answer of {@code state} on the live path, or of the checkpoint viewed. */
  public static Optional<AnswerText> last(TabState state) {
    List<Block> blocks = state.blocks();
    for (int i = blocks.size() - 1; i >= 0; i--) {
      if (blocks.get(i) instanceof Blocks.Answer answer && !answer.isEmpty() && !state.rewound(answer)
          && state.viewed().map(v -> v == answer.checkpoint()).orElse(true)) {
        return Optional.of(new AnswerText(answer.checkpoint(), answer.text().strip()));
      }
    }
    return Optional.empty();
  }

  /** Its code blocks: fenced by three or more backticks or tildes, closed by a like fence at least as long (or the end). */
  public List<CodeBlock> codeBlocks() {
    List<CodeBlock> found = new ArrayList<>();
    String fence = null;
    String language = "";
    List<String> code = new ArrayList<>();
    for (String line : text.split("\n", -1)) {
      String trimmed = line.strip();
      if (fence == null) {
        fence = fence(trimmed);
        if (fence != null) {
          language = trimmed.substring(fence.length()).strip().split("\\s+")[0];
          code.clear();
        }
      } else if (closes(fence, trimmed)) {
        found.add(new CodeBlock(language, String.join("\n", code)));
        fence = null;
      } else {
        code.add(line);
      }
    }
    if (fence != null) {
      found.add(new CodeBlock(language, String.join("\n", code))); // an answer cut short leaves its last block open
    }
    return found;
  }

  private static boolean closes(String fence, String line) {
    String closing = fence(line);
    return closing != null && closing.charAt(0) == fence.charAt(0) && closing.length() >= fence.length()
        && line.length() == closing.length();
  }

  private static String fence(String line) {
    for (char c : new char[] {'`', '~'}) {
      int n = 0;
      while (n < line.length() && line.charAt(n) == c) {
        n++;
      }
      if (n >= 3 && (c == '~' || line.indexOf('`', n) < 0)) {
        return line.substring(0, n);
      }
    }
    return null;
  }
}
