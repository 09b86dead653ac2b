package dev.waymark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The import rule of the house: code names a type by its simple name, imported, never inline as
 * {@code java.util.Map} or {@code dev.waymark.core.protocol.Event}; the imports say at a glance what a
 * file uses. A fully-qualified name stays only where the simple name is taken in that file (a type
 * of its own, or another import of that name). Every module's sources are read; comments and
 * strings are not code.
 */
class InlineNamesTest {
  private static final Pattern QUALIFIED =
      Pattern.compile("(?<![\\w.])((?:java|javax|com|org|dev|picocli|io)\\.(?:[a-z_][a-z0-9_]*\\.)+)([A-Z]\\w*)");
  private static final Pattern IMPORT = Pattern.compile("(?m)^import ([\\w.]+);");
  private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");

  @Test
  void noSourceNamesATypeInlineWhereItsSimpleNameIsFree() throws IOException {
    List<String> inline = new ArrayList<>();
    for (String module : List.of("../core/src", "../tui/src", "../app/src")) {
      try (Stream<Path> files = Files.walk(Path.of(module))) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          inline.addAll(inlineNames(file));
        }
      }
    }
    assertThat(inline).as("inline fully-qualified names (import them)").isEmpty();
  }

  private static List<String> inlineNames(Path file) throws IOException {
    String source = Files.readString(file);
    Map<String, String> imported = new HashMap<>();
    Matcher imports = IMPORT.matcher(source);
    while (imports.find()) {
      String name = imports.group(1);
      imported.put(name.substring(name.lastIndexOf('.') + 1), name);
    }
    Set<String> declared = new HashSet<>();
    Matcher types = DECLARED.matcher(source);
    while (types.find()) {
      declared.add(types.group(1));
    }
    Set<String> samePackage = new HashSet<>();
    try (Stream<Path> siblings = Files.list(file.getParent())) {
      siblings.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".java"))
          .forEach(n -> samePackage.add(n.substring(0, n.length() - 5)));
    }
    List<String> found = new ArrayList<>();
    boolean inComment = false;
    int number = 0;
    for (String line : source.split("\n", -1)) {
      number++;
      String trimmed = line.strip();
      if (inComment) {
        inComment = !line.contains("*/");
        continue;
      }
      if (trimmed.startsWith("/*") && !trimmed.contains("*/")) {
        inComment = true;
        continue;
      }
      if (trimmed.startsWith("import ") || trimmed.startsWith("package ") || trimmed.startsWith("*")
          || trimmed.startsWith("//") || trimmed.startsWith("/*")) {
        continue;
      }
      Matcher m = QUALIFIED.matcher(line);
      while (m.find()) {
        String before = line.substring(0, m.start());
        if (before.chars().filter(c -> c == '"').count() % 2 == 1 || before.contains("//")) {
          continue; // in a string or a comment
        }
        String name = m.group(2);
        String qualified = m.group(1) + name;
        boolean taken = declared.contains(name) || samePackage.contains(name)
            || (imported.containsKey(name) && !imported.get(name).equals(qualified));
        if (!taken) {
          found.add(file + ":" + number + ": " + qualified);
        }
      }
    }
    return found;
  }
}
