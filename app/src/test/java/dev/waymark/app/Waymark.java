package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** What the end-to-end tests share: the packaged jar as a process, and the real git on its store. */
final class Waymark {
  private Waymark() {}

  /**
   * The command that runs the packaged jar as {@code app/bin/waymark} runs it (the client compiler,
   * the serial collector and the class-data archive made at package time, when it is there and
   * not older than the jar), then {@code jvmOptions} and {@code args}.
   */
  static List<String> command(List<String> jvmOptions, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(launcherOptions());
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", System.getProperty("waymark.jar")));
    command.addAll(args);
    return command;
  }

  /** The JVM options of {@code app/bin/waymark}. */
  static List<String> launcherOptions() {
    List<String> options = new ArrayList<>(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
    File jar = new File(System.getProperty("waymark.jar"));
    File archive = new File(jar.getParentFile(), "waymark.jsa");
    if (archive.isFile() && archive.lastModified() >= jar.lastModified()) {
      options.addAll(List.of("-XX:SharedArchiveFile=" + archive, "-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
    }
    return options;
  }

  /**
   * A process builder for Waymark in {@code project} with its data in {@code home}: no provider
   * settings from the developer's environment, and a private HOME and config directory under
   * {@code temp}; standard input closed.
   */
  static ProcessBuilder process(Path temp, Path home, Path project, List<String> command) {
    ProcessBuilder pb = new ProcessBuilder(command).directory(project.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("OPENAI_") || k.startsWith("ANTHROPIC_") || k.startsWith("WAYMARK_"));
    env.put("WAYMARK_HOME", home.toString());
    env.put("HOME", temp.resolve("user").toString());
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    return pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
  }

  /** The shadow repository under {@code home}, if a store was made. */
  static Path shadow(Path home) throws Exception {
    Path projects = home.resolve("projects");
    if (!Files.isDirectory(projects)) {
      return null;
    }
    try (Stream<Path> found = Files.find(projects, 2, (p, a) -> p.getFileName().toString().equals("shadow.git"))) {
      return found.findFirst().orElse(null);
    }
  }

  record Git(int exit, String out) {}

  /** Runs the real git on a shadow repository. */
  static Git git(Path shadow, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "--git-dir=" + shadow));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Git(p.waitFor(), out);
  }

  /** Runs the real git on the store under {@code home}; it must succeed. */
  static String gitOk(Path home, String... args) throws Exception {
    Path shadow = shadow(home);
    assertThat(shadow).as("a shadow repository under %s", home).isNotNull();
    Git git = git(shadow, args);
    assertThat(git.exit()).as("git %s: %s", List.of(args), git.out()).isZero();
    return git.out();
  }
}
