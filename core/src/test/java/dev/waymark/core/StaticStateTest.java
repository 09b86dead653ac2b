package dev.waymark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine keeps no state in statics: a store, a tab or a test made beside another shares
 * nothing with it by accident, and what runs threads is owned by something that can be closed.
 * Read from the compiled classes: every static field that is not final, or final but of a type
 * that holds changing state (an executor, a thread, something to close, an atomic, a collection or
 * map that is not unmodifiable, an array), must be in {@link #ALLOWED} with the reason it is one per process.
 */
class StaticStateTest {
  private static final Path CLASSES = Path.of("target/classes");

  /** {@code Class.field} (nested classes with {@code $}) and why it is static. Shrink it; never grow it without a reason. */
  private static final Map<String, String> ALLOWED = Map.ofEntries(
      // the named executors: the one place a thread pool may be static
      Map.entry("dev.waymark.core.checkpoint.project.CaptureThreads.PROCESS",
          "walk and watch threads for a walker given none; each store's capture has its own"),
      Map.entry("dev.waymark.core.checkpoint.shell.Scanner.BESIDE",
          "a thread per task beside the scan, no pool: each ends with its task"),
      // in-process halves of file locks: a lock file is per process, so what one JVM holds must be one map for the JVM
      Map.entry("dev.waymark.core.checkpoint.shell.CommandSlot.IN_PROCESS", "the command slots this JVM holds, by project"),
      Map.entry("dev.waymark.core.checkpoint.store.ProjectLock.IN_PROCESS", "the project locks this JVM holds"),
      Map.entry("dev.waymark.core.checkpoint.store.TabLocks.CLAIMED", "the tabs this JVM holds"),
      Map.entry("dev.waymark.core.checkpoint.lib.ExclusiveFile.IN_PROCESS", "the exclusive files this JVM holds"),
      // facts of the process, found once
      Map.entry("dev.waymark.core.checkpoint.lib.FileModes.newFileMode", "the umask's mode for a new file, read once"),
      Map.entry("dev.waymark.core.checkpoint.store.GitIsolation.installed", "JGit's SystemReader is one per JVM"),
      Map.entry("dev.waymark.core.sandbox.PrivateFiles.ownDir", "the process's private directory, made once"),
      Map.entry("dev.waymark.core.tool.RunShellTool.SAID_NO_LAYERS", "the log says once per process that layers are off"),
      // seams for tests to act at a moment no signal marks
      Map.entry("dev.waymark.core.tool.AtomicWrite.tempWritten", "test hook: after the temporary file is written"),
      Map.entry("dev.waymark.core.layer.LayerApply.afterStep", "test hook: after each step of an apply"),
      // private lookup tables, filled once and only read
      Map.entry("dev.waymark.core.checkpoint.RescuedVersions.FOLDERS", "the two folders of a rescue tag, read only"),
      Map.entry("dev.waymark.core.checkpoint.shell.StatCacheFormat.KINDS", "FileKind.values(), decoding the cache file"),
      Map.entry("dev.waymark.core.checkpoint.shell.StatCacheFormat.SOURCES", "Source.values(), decoding the cache file"),
      Map.entry("dev.waymark.core.checkpoint.lib.FileModes.BITS", "PosixFilePermission.values(), by mode bit"));

  @Test
  void noStaticFieldHoldsStateBeyondTheAllowedOnes() throws Exception {
    List<String> found = new ArrayList<>();
    for (Class<?> type : engineClasses()) {
      for (Field field : type.getDeclaredFields()) {
        if (Modifier.isStatic(field.getModifiers()) && !field.isSynthetic() && holdsState(field)) {
          found.add(type.getName() + "." + field.getName());
        }
      }
    }
    assertThat(found).as("static state (see ALLOWED)").isNotEmpty().allMatch(ALLOWED::containsKey);
    assertThat(ALLOWED.keySet()).as("allowed but gone: take them off the list").allMatch(found::contains);
  }

  private static boolean holdsState(Field field) throws IllegalAccessException {
    if (!Modifier.isFinal(field.getModifiers())) {
      return true;
    }
    Class<?> type = field.getType();
    if (type.isArray() || Executor.class.isAssignableFrom(type) || Thread.class.isAssignableFrom(type)
        || AutoCloseable.class.isAssignableFrom(type) || type.getPackageName().equals("java.util.concurrent.atomic")) {
      return true;
    }
    if (!Collection.class.isAssignableFrom(type) && !Map.class.isAssignableFrom(type)) {
      return false;
    }
    field.setAccessible(true);
    Object value = field.get(null);
    return value != null && !unmodifiable(value.getClass());
  }

  /** The JDK's unmodifiable collections and maps: {@code List.of}, {@code Map.copyOf}, {@code Collections.unmodifiable…}, the empty ones. */
  private static boolean unmodifiable(Class<?> type) {
    String name = type.getName();
    return name.startsWith("java.util.ImmutableCollections$") || name.startsWith("java.util.Collections$Unmodifiable")
        || name.startsWith("java.util.Collections$Empty") || name.startsWith("java.util.Collections$Singleton");
  }

  private static List<Class<?>> engineClasses() throws IOException, ClassNotFoundException {
    List<Class<?>> classes = new ArrayList<>();
    try (Stream<Path> files = Files.walk(CLASSES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String name = CLASSES.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
        if (!name.endsWith("package-info")) {
          classes.add(Class.forName(name, false, StaticStateTest.class.getClassLoader()));
        }
      }
    }
    assertThat(classes).as("the engine's classes under " + CLASSES.toAbsolutePath()).hasSizeGreaterThan(100);
    return classes;
  }
}
