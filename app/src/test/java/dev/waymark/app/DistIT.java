package dev.waymark.app;

import static dev.waymark.core.testing.FakeModelServer.OPENAI_DONE;
import static dev.waymark.core.testing.FakeModelServer.openAiFinish;
import static dev.waymark.core.testing.FakeModelServer.openAiText;
import static dev.waymark.core.testing.FakeModelServer.openAiToolChunk;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution as a user installs it (issue 56): the tarball unpacked into an empty directory
 * and started through a symlink, and the .deb installed with dpkg. Both run with no JDK on PATH and
 * no JAVA_HOME, so only the runtime they carry can run them; the app module builds them before the
 * ITs. In CI (CI=true) nothing here skips: a missing tool or package fails.
 */
class DistIT {
  private static final boolean CI = "true".equals(System.getenv("CI"));
  private static final String VERSION = System.getProperty("waymark.version");
  private static final Path DIST = Path.of(System.getProperty("waymark.dist", "target/dist"));
  /** The files are named for the machine that built them (make-dist): linux-x64 and amd64 on x86-64. */
  private static final String ARCH = System.getProperty("os.arch");
  private static final Path TARBALL = DIST.resolve("waymark-" + VERSION + "-linux-" + (ARCH.equals("amd64") ? "x64" : ARCH) + ".tar.gz");
  private static final Path DEB = DIST.resolve("waymark_" + VERSION.replace('-', '~') + "_" + (ARCH.equals("aarch64") ? "arm64" : ARCH) + ".deb");

  @TempDir Path temp;
  FakeModelServer server;
  Path noJdk;

  @BeforeEach
  void setUp() throws IOException {
    Path jar = Path.of(System.getProperty("waymark.jar"));
    assertThat(Files.exists(TARBALL) && Files.getLastModifiedTime(TARBALL).compareTo(Files.getLastModifiedTime(jar)) >= 0)
        .as("the distribution is built from the jar before the ITs, but not for -Dit.test=... alone: add -Pdist").isTrue();
    server = FakeModelServer.start();
    noJdk = pathWithoutJdk();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  record Run(int exit, String out, String err) {}

  @Test
  void theTarballUnpackedAnywhereRunsATurnInTheSandboxAnMcpServerAndTheInterfaceOnItsOwnRuntime() throws Exception {
    assertThat(TARBALL).as("built before the ITs by the app module (mvn -B verify, or mvn -B package -Pdist)").isRegularFile();
    Path opt = Files.createDirectories(temp.resolve("my tools")); // a space, as in many a home
    assertThat(run(List.of("tar", "-xzf", TARBALL.toString(), "-C", opt.toString()), Map.of()).exit()).isZero();
    Path tree = opt.resolve("waymark-" + VERSION);
    Path link = Files.createDirectories(temp.resolve("bin")).resolve("waymark");
    Files.createSymbolicLink(link, tree.resolve("bin/waymark"));

    Run first = waymark(link, "--version");
    assertThat(first.exit()).as(first.err()).isZero();
    assertThat(first.out()).isEqualTo("waymark " + VERSION + "\n");
    assertThat(first.err()).as("the archive Java 17 can map only where it was made, made here at the first start")
        .startsWith("waymark: making a class-data archive for a faster start in " + tree.toRealPath());
    Run second = waymark(link, "--version");
    assertThat(second.err()).isEmpty();
    assertArchiveMaps(tree);

    aTurnRunsTheSandboxedShell(link);
    anMcpServerAnswersThroughTheSdk(link);
    theRuntimeSpeaksTlsAndReadsEveryCharset(tree);
    theInterfaceRunsATurn(link);
  }

  @Test
  void theDebInstallsWaymarkOnPathRunsATurnAndRemovesWithoutATrace() throws Exception {
    assertThat(DEB).as("built before the ITs by the app module (mvn -B verify, or mvn -B package -Pdist)").isRegularFile();
    boolean canInstall = "root".equals(System.getProperty("user.name")) && run(List.of("dpkg", "--version"), Map.of()).exit() == 0;
    boolean installed = run(List.of("dpkg-query", "-W", "waymark"), Map.of()).exit() == 0;
    if (CI) {
      assertThat(canInstall).as("installing the .deb needs root and dpkg (CI runs as root on Debian)").isTrue();
      assertThat(installed).as("a waymark package is installed already; this test removes the one it installs").isFalse();
    }
    assumeTrue(canInstall && !installed, "needs root and dpkg, and no waymark package installed");
    Run contents = run(List.of("sh", "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -t", "sh", DEB.toString()), Map.of());
    assertThat(contents.exit()).as(contents.err()).isZero();
    List<Path> paths = contents.out().lines().map(line -> Path.of("/", line).normalize()).toList();
    Map<Path, Boolean> before = new LinkedHashMap<>();
    paths.forEach(p -> before.put(p, Files.exists(p, LinkOption.NOFOLLOW_LINKS)));
    assertThat(before).containsEntry(Path.of("/usr/bin/waymark"), false).containsEntry(Path.of("/usr/lib/waymark/"), false);

    Run install = run(List.of("dpkg", "-i", DEB.toString()), Map.of());
    try {
      assertThat(install.exit()).as(install.out() + install.err()).isZero();
      assertThat(run(List.of("dpkg-query", "-W", "-f", "${Recommends}", "waymark"), Map.of()).out()).isEqualTo("bubblewrap, git");
      Path command = Path.of("/usr/bin/waymark");
      assertThat(Files.isSymbolicLink(command)).isTrue();
      Run version = waymark(command, "--version");
      assertThat(version.exit()).as(version.err()).isZero();
      assertThat(version.out()).isEqualTo("waymark " + VERSION + "\n");
      assertThat(version.err()).as("the archive was made on install").isEmpty();
      assertArchiveMaps(Path.of("/usr/lib/waymark"));
      aTurnRunsTheSandboxedShell(command);
    } finally {
      Run remove = run(List.of("dpkg", "-r", "waymark"), Map.of());
      assertThat(remove.exit()).as(remove.out() + remove.err()).isZero();
      assertThat(remove.err()).as("dpkg leaves no directory behind for files it did not install").doesNotContain("not empty");
    }
    paths.forEach(p -> assertThat(Files.exists(p, LinkOption.NOFOLLOW_LINKS)).as("%s after dpkg -r", p).isEqualTo(before.get(p)));
    assertThat(Path.of("/usr/lib/waymark")).doesNotExist();
    assertThat(run(List.of("dpkg-query", "-W", "-f", "${db:Status-Status}", "waymark"), Map.of()).out())
        .isIn("", "not-installed");
  }

  /** Java 17 refuses a class-data archive made elsewhere; -Xshare:on makes a refusal fail instead of starting without it. */
  private void assertArchiveMaps(Path tree) throws Exception {
    assertThat(Files.readString(tree.resolve("lib/waymark.jsa.place")).strip()).isEqualTo(tree.toRealPath().toString());
    Run mapped = run(List.of(tree.resolve("runtime/bin/java").toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-XX:SharedArchiveFile=" + tree.resolve("lib/waymark.jsa"), "-Xshare:on", "-jar", tree.resolve("lib/waymark.jar").toString(),
        "--version"), Map.of());
    assertThat(mapped.exit()).as(mapped.out() + mapped.err()).isZero();
  }

  /**
   * A turn against the fake model: write_file, then run_shell in the sandbox (required: a sandbox
   * that cannot start fails it). The command uses bash's builtins only: the sandbox does not see
   * this test's PATH directory.
   */
  private void aTurnRunsTheSandboxedShell(Path command) throws Exception {
    Path project = Files.createDirectories(temp.resolve("project-" + command.getParent().getFileName()));
    Files.writeString(project.resolve("notes.md"), "hello\n");
    Path config = Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(config.resolve("settings.json"), "{\"sandbox\": {\"mode\": \"required\"}}");
    server.enqueue(toolCalls(), openAiText("Written and listed."));

    Run turn = waymark(command, "exec", "-C", project.toString(), "--model", "dist-model", "--approval", "yolo", "write and list");

    assertThat(turn.exit()).as(turn.err()).isZero();
    assertThat(turn.out()).contains("Written and listed.");
    assertThat(turn.err()).contains("> write_file write new.txt", "> run_shell printf '%s\\n' * > listing.txt").doesNotContain("✗");
    assertThat(turn.err()).containsPattern("checkpoint #1: 2 files changed");
    assertThat(Files.readString(project.resolve("new.txt"))).isEqualTo("fresh\n");
    assertThat(Files.readAllLines(project.resolve("listing.txt"))).contains("new.txt", "notes.md");
  }

  private static Reply toolCalls() {
    return Reply.sse(
        FakeModelServer.data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"),
        openAiToolChunk(0, "call_w", "write_file", "{\"path\":\"new.txt\",\"content\":\"fresh\\n\"}"),
        openAiToolChunk(1, "call_s", "run_shell", "{\"command\":\"printf '%s\\\\n' * > listing.txt\"}"),
        openAiFinish("tool_calls"), OPENAI_DONE);
  }

  /** The MCP SDK (Jackson, its schema validator, a stdio transport) on the trimmed runtime: the npm reference server the build installs. */
  private void anMcpServerAnswersThroughTheSdk(Path command) throws Exception {
    Path server = Path.of(System.getProperty("waymark.npm.servers", "target/npm-mcp"), "node_modules/.bin/mcp-server-everything");
    assertThat(server).as("installed by the build before the ITs (the npm-mcp-servers execution in app/pom.xml)").isRegularFile();
    Files.writeString(temp.resolve("config/waymark/settings.json"), "{\"mcpServers\": {\"everything\": {\"command\": \""
        + server.toAbsolutePath() + "\", \"args\": [\"stdio\"]}}}");
    Path script = temp.resolve("mcp-script.json");
    Files.writeString(script, "{\"responses\":[{\"toolCalls\":[{\"name\":\"everything__echo\",\"arguments\":"
        + "{\"message\":\"from the distribution\"}}]},{\"text\":\"Done.\"}]}");

    Run turn = waymark(command, "exec", "-C", Files.createDirectories(temp.resolve("mcp-project")).toString(),
        "--provider", "scripted", "--script", script.toString(), "--approval", "yolo", "echo");

    assertThat(turn.exit()).as(turn.err()).isZero();
    assertThat(turn.err()).contains("✓ Echo: from the distribution");
  }

  private void theRuntimeSpeaksTlsAndReadsEveryCharset(Path tree) throws Exception {
    Path classes = Path.of(DistProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Run probe = run(List.of(tree.resolve("runtime/bin/java").toString(), "-cp", classes.toString(), DistProbe.class.getName()),
        Map.of("PATH", noJdk.toString()));
    assertThat(probe.exit()).as(probe.err()).isZero();
    assertThat(probe.out()).contains("ECDHE suites: true", "X25519: true", "ECDH: true", "ISO-2022-JP: true", "HTTPS: 200 ok TLSv1.3");
    assertThat(probe.out()).containsPattern("trusted authorities: [1-9][0-9]{2}");
  }

  private void theInterfaceRunsATurn(Path command) throws Exception {
    assertThat(Tmux.available()).as("tmux is needed: apt-get install tmux (.ci/run installs it)").isTrue();
    Path project = Files.createDirectories(temp.resolve("ui-project"));
    Path script = temp.resolve("script.json");
    Files.writeString(script, "{\"responses\":[{\"toolCalls\":[{\"name\":\"write_file\",\"arguments\":"
        + "{\"path\":\"a.txt\",\"content\":\"1\\n\"}}]},{\"text\":\"Wrote one.\"}]}");
    try (Tmux tmux = new Tmux()) {
      tmux.start(100, 30, project, Map.of("PATH", noJdk.toString(), "JAVA_HOME", "", "WAYMARK_HOME", temp.resolve("home").toString(),
          "HOME", temp.resolve("user").toString(), "XDG_CONFIG_HOME", temp.resolve("config").toString()),
          List.of(command.toString(), "--script", script.toString(), "--approval", "yolo", project.toString()));
      tmux.waitFor("ready · #0", Duration.ofSeconds(30));
      tmux.type("one");
      tmux.keys("Enter");
      tmux.waitFor("Wrote one.");
      tmux.waitFor("ready · #1");
    }
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("1\n");
  }

  /** Waymark as a user starts it, in a fresh environment: the fake model's settings, PATH without a JDK, no JAVA_HOME. */
  private Run waymark(Path command, String... args) throws Exception {
    List<String> line = new ArrayList<>(List.of(command.toString()));
    line.addAll(List.of(args));
    return run(line, Map.of("PATH", noJdk.toString(), "HOME", temp.resolve("user").toString(),
        "WAYMARK_HOME", temp.resolve("home").toString(), "XDG_CONFIG_HOME", temp.resolve("config").toString(),
        "OPENAI_BASE_URL", server.url("/v1").toString(), "OPENAI_API_KEY", "sk-dist-test"));
  }

  private Run run(List<String> command, Map<String, String> env) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).directory(temp.toFile());
    if (!env.isEmpty()) {
      pb.environment().clear();
      pb.environment().put("LANG", "C.UTF-8");
      pb.environment().putAll(env);
    }
    Path out = Files.createTempFile(temp, "out", ".txt");
    Path err = Files.createTempFile(temp, "err", ".txt");
    Process process = pb.redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(command + " did not end within 120 s; stderr: " + Files.readString(err));
    }
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }

  /**
   * A directory of links to every program on this PATH but a JDK's (java, javac, keytool ... resolve
   * into a directory with a {@code release} file): what the launcher and the sandboxed shell need, and no Java.
   */
  private Path pathWithoutJdk() throws IOException {
    Path dir = Files.createDirectories(temp.resolve("no-jdk-bin"));
    for (String entry : System.getenv("PATH").split(File.pathSeparator)) {
      Path bin = Path.of(entry);
      if (!Files.isDirectory(bin)) {
        continue;
      }
      try (Stream<Path> programs = Files.list(bin)) {
        for (Path program : programs.toList()) {
          Path link = dir.resolve(program.getFileName().toString());
          if (Files.isExecutable(program) && !Files.isDirectory(program) && !Files.exists(link, LinkOption.NOFOLLOW_LINKS)
              && !inJdk(program)) {
            Files.createSymbolicLink(link, program);
          }
        }
      }
    }
    assertThat(dir.resolve("java")).as("the PATH the distribution runs with has no java").doesNotExist();
    return dir;
  }

  private static boolean inJdk(Path program) {
    try {
      Path home = program.toRealPath().getParent().getParent();
      return home != null && Files.exists(home.resolve("release"));
    } catch (IOException | NullPointerException unresolvable) {
      return false;
    }
  }
}
