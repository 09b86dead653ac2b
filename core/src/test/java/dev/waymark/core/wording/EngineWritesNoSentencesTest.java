package dev.waymark.core.wording;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint engine says what happened in values, and {@link Wording} says it in words: no
 * public method of the engine is named as one that writes a sentence for the user.
 */
class EngineWritesNoSentencesTest {
  private static final Path ENGINE = Path.of("src/main/java/dev/waymark/core/checkpoint");
  private static final Pattern SENTENCE = Pattern.compile("why.*|describe.*|.*Note|summary|explain.*");
  /** Still worded in the engine (issue 38, item 2): to move to Wording, then to leave this list. */
  private static final Set<String> NOT_YET = Set.of("Exclusion.described");

  @Test
  void noEngineMethodIsNamedForASentence() throws Exception {
    List<String> wording = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ENGINE)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("package-info.java")).toList()) {
        String name = ENGINE.relativize(file).toString().replace(".java", "").replace('/', '.');
        for (Class<?> type : withNested(Class.forName("dev.waymark.core.checkpoint." + name))) {
          for (Method method : type.getDeclaredMethods()) {
            String said = type.getSimpleName() + "." + method.getName();
            if (Modifier.isPublic(method.getModifiers()) && method.getReturnType() == String.class
                && SENTENCE.matcher(method.getName()).matches() && !NOT_YET.contains(said) && !carried(type, method)) {
              wording.add(said);
            }
          }
        }
      }
    }
    assertThat(wording).as("sentences are written in core.wording from the engine's values").isEmpty();
  }

  /** A record's component (a reason carried as a value, as a clash's {@code why}) is no sentence written here. */
  private static boolean carried(Class<?> type, Method method) {
    return type.isRecord() && Stream.of(type.getRecordComponents()).anyMatch(c -> c.getName().equals(method.getName()));
  }

  private static List<Class<?>> withNested(Class<?> type) {
    List<Class<?>> all = new ArrayList<>(List.of(type));
    for (Class<?> nested : type.getDeclaredClasses()) {
      all.addAll(withNested(nested));
    }
    return all;
  }
}
