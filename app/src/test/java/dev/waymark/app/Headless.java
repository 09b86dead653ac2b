package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The test fixture for Waymark's command line run in this JVM, as a user types it: a home and a
 * configuration directory of its own under the test's temporary directory, and what the run
 * printed, kept for the test to read (each run starts them empty). A scripted turn: {@link
 * #script} writes what the model answers, {@link #exec} runs {@code exec} with it, and {@link
 * #started} reads the session and tab the run named.
 */
final class Headless {
  private static final Pattern STARTED = Pattern.compile("session (\\S+), tab (\\S+)");

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

  /** Writes the script {@link #exec} plays: {@code json} with single quotes read as double. */
  void script(String json) throws IOException {
    Files.writeString(scriptFile(), json.replace('\'', '"'));
  }

  /** Runs {@code waymark exec --script SCRIPT ARGS} with the script {@link #script} wrote; its exit code. */
  int exec(String... args) {
    return run(Stream.concat(Stream.of("exec", "--script", scriptFile().toString()), Stream.of(args))
        .toArray(String[]::new));
  }

  /** The session and tab a run of {@code exec} named on standard error. */
  record Started(String session, String tab) {}

  /** What the last run of {@code exec} started or went on with; fails when it named none. */
  Started started() {
    Matcher m = STARTED.matcher(err.toString());
    if (!m.find()) {
      throw new AssertionError("exec named no session and tab; it said: " + err);
    }
    return new Started(m.group(1), m.group(2));
  }

  private Path scriptFile() {
    return temp.get().resolve("script.json");
  }
}
