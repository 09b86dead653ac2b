package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** No sentence of any module writes "2 file(s)": counts go through Counted, which knows one from many. */
class NoMaybePluralTest {
  private static final Pattern LITERAL = Pattern.compile("\"(?:[^\"\\\\\\n]|\\\\.)*\"");
  private static final Pattern MAYBE_PLURAL = Pattern.compile("(?i)\\b(?!https?\\()[a-z]+\\(s\\)");

  @Test
  void noStringLiteralHasAParenthesisedS() throws IOException {
    List<String> found = new ArrayList<>();
    for (String module : List.of("core", "tui", "app")) {
      try (Stream<Path> sources = Files.walk(Path.of("..", module, "src", "main", "java"))) {
        for (Path source : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
          List<String> lines = Files.readAllLines(source);
          for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).strip().matches("(/?\\*|//).*")) { // a comment, which no user reads
              continue;
            }
            Matcher literal = LITERAL.matcher(lines.get(i));
            while (literal.find()) {
              if (MAYBE_PLURAL.matcher(literal.group()).find()) {
                found.add(source.getFileName() + ":" + (i + 1) + " " + literal.group());
              }
            }
          }
        }
      }
    }
    assertThat(found).isEmpty();
  }
}
