package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The test fixture for Waymark's command line run in this JVM, as a user types it: a home and a
 * configuration directory of its own under the test's temporary directory, and what the run
 * printed, kept for the test to read (each run starts them empty).
 */
final class Headless {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  private final Supplier<Path> temp;
  private final Map<String, String> extraEnvironment;

  /** {@code temp}: the test's temporary directory, asked for at each run (JUnit sets it after the fixture is made). */
  Headless(Supplier<Path> temp) {
    this(temp, Map.of());
  }

  Headless(Supplier<Path> temp, Map<String, String> extraEnvironment) {
    this.temp = temp;
    this.extraEnvironment = Map.copyOf(extraEnvironment);
  }

  /** Runs {@code waymark ARGS}; its exit code. */
  int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    Map<String, String> environment = new HashMap<>(extraEnvironment);
    environment.put("XDG_CONFIG_HOME", temp.get().resolve("config").toString());
    return Main.run(args, new WaymarkHome(temp.get().resolve("home")), new PrintWriter(out, true),
        new PrintWriter(err, true), environment);
  }
}
