package dev.waymark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The protocol is what front ends read: plain values only. A record component of an engine type
 * (a JGit id, a checkpoint, a model message) would tie every front end to the engine's insides.
 */
class ProtocolIsPlainValuesTest {
  private static final String PACKAGE = "dev.waymark.core.protocol";
  private static final List<String> ENGINE = List.of("org/eclipse/jgit/", "dev/waymark/core/checkpoint/",
      "dev/waymark/core/agent/", "dev/waymark/core/model/", "dev/waymark/core/tool/", "dev/waymark/core/session/");

  @Test
  void everyRecordComponentIsAJavaTypeOrAProtocolType() throws Exception {
    List<Class<?>> records = protocolClasses().stream().filter(Class::isRecord).toList();
    assertThat(records).as("the protocol's records were found").extracting(Class::getSimpleName)
        .contains("CheckpointView", "TurnStarted", "CheckpointRestored", "View", "Undo");
    List<String> outside = new ArrayList<>();
    for (Class<?> record : records) {
      for (RecordComponent component : record.getRecordComponents()) {
        for (Class<?> used : classesIn(component.getGenericType())) {
          if (!plain(used)) {
            outside.add(record.getName() + "." + component.getName() + ": " + used.getName());
          }
        }
      }
    }
    assertThat(outside).as("record components of types outside java.* and " + PACKAGE).isEmpty();
  }

  @Test
  void noProtocolClassRefersToTheEngineOrJGit() throws Exception {
    List<String> leaks = new ArrayList<>();
    for (Path file : classFiles()) {
      // class names in the constant pool are written with slashes
      String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      for (String forbidden : ENGINE) {
        if (bytes.contains(forbidden)) {
          leaks.add(file.getFileName() + " refers to " + forbidden);
        }
      }
    }
    assertThat(leaks).isEmpty();
  }

  @Test
  void aViewTakesACheckpointNumberExactlyWhenItMovesToOne() {
    assertThat(Command.View.at(3).checkpoint()).isEqualTo(OptionalInt.of(3));
    assertThat(Command.View.back().checkpoint()).isEmpty();
    assertThatThrownBy(() -> new Command.View(Command.View.Direction.AT, OptionalInt.empty()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs its number");
    assertThatThrownBy(() -> new Command.View(Command.View.Direction.LIVE, OptionalInt.of(2)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void undoAndDiffSayLiveOrOneStepWithAnEmptyNumber() {
    assertThat(Command.Undo.one().to()).isEmpty();
    assertThat(Command.Undo.to(2)).isEqualTo(new Command.Undo(OptionalInt.of(2), false));
    assertThat(Command.Diff.live().checkpoint()).isEmpty();
    assertThat(Command.Diff.of(0).checkpoint()).isEqualTo(OptionalInt.of(0));
  }

  private static boolean plain(Class<?> type) {
    if (type.isPrimitive()) {
      return true;
    }
    String name = type.getName();
    return name.startsWith("java.") || name.startsWith(PACKAGE + ".");
  }

  /** The classes a (generic) type names: the raw type, its type arguments, array elements and bounds. */
  private static List<Class<?>> classesIn(Type type) {
    List<Class<?>> found = new ArrayList<>();
    if (type instanceof Class<?> c) {
      found.add(c.isArray() ? c.getComponentType() : c);
    } else if (type instanceof ParameterizedType p) {
      found.addAll(classesIn(p.getRawType()));
      for (Type argument : p.getActualTypeArguments()) {
        found.addAll(classesIn(argument));
      }
    } else if (type instanceof GenericArrayType a) {
      found.addAll(classesIn(a.getGenericComponentType()));
    } else if (type instanceof WildcardType w) {
      Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
          .forEach(t -> found.addAll(classesIn(t)));
    } else {
      throw new AssertionError("a protocol record uses a type variable: " + type);
    }
    return found;
  }

  private static List<Class<?>> protocolClasses() throws IOException, URISyntaxException, ClassNotFoundException {
    List<Class<?>> classes = new ArrayList<>();
    for (Path file : classFiles()) {
      String simple = file.getFileName().toString().replaceFirst("\\.class$", "");
      classes.add(Class.forName(PACKAGE + "." + simple.replace('/', '.')));
    }
    return classes;
  }

  private static List<Path> classFiles() throws IOException, URISyntaxException {
    Path dir = Path.of(Command.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        .resolve(PACKAGE.replace('.', '/'));
    try (Stream<Path> files = Files.list(dir)) {
      List<Path> all = files.filter(f -> f.toString().endsWith(".class")).sorted().toList();
      assertThat(all).as("compiled protocol classes in " + dir).isNotEmpty();
      return all;
    }
  }
}
