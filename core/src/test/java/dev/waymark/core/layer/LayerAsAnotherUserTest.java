package dev.waymark.core.layer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.sandbox.ShellSandbox;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A command in a layer, run by a user without privileges: the user namespace, the overlay mount
 * and the sandbox inside it must work without root, and what the command makes must be the
 * user's. CI runs as root, so there the command is started as {@code nobody} (uid 65534) through
 * {@code setpriv}, on a project and a layer that are {@code nobody}'s, as a user's would be theirs.
 */
class LayerAsAnotherUserTest {
  static final int NOBODY = 65534;
  Path base;

  @BeforeEach
  void open() throws IOException {
    base = Files.createDirectories(Path.of("/var/tmp", "waymark-layer-user-" + UUID.randomUUID()));
  }

  @AfterEach
  void close() throws IOException {
    try (Stream<Path> walk = Files.walk(base)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Test
  void anUnprivilegedUsersCommandWritesOnlyItsLayerAndWhatItMadeIsTheirsOnceApplied() throws Exception {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path project = Files.createDirectories(base.resolve("project"));
    Files.writeString(project.resolve("tracked.txt"), "tracked\n");
    Files.writeString(project.resolve("gone.txt"), "gone\n");
    Files.createDirectories(project.resolve("old"));
    Files.writeString(project.resolve("old/inside.txt"), "inside\n");
    Path layersRoot = Files.createDirectories(base.resolve("store/layers"));
    ShellSandbox sandbox = Bwrap.required(SandboxPolicy.protecting(base.resolve("data"), base.resolve("config")));
    LayerSupport support = LayerSupport.detect(layersRoot, sandbox.bwrap().orElseThrow(), System.getenv("PATH"));
    assertThat(support.available()).as(support.unavailable()).isTrue();
    long uid = root ? NOBODY : (Integer) Files.getAttribute(project, "unix:uid");
    if (root) {
      chownAll(base, NOBODY); // before the layer starts: a change of owner is a change
    }
    Layer layer = new LayerJournal(layersRoot).begin(project.toRealPath(), "tab#1", "");
    if (root) {
      chownAll(layer.directory(), NOBODY);
    }

    String script = String.join("\n", "id -u", "echo new > new.txt", "echo more >> tracked.txt", "rm gone.txt",
        "rm -rf old && mkdir -p old/sub && echo made > old/sub/made.txt", "chmod 700 new.txt", "cat tracked.txt");
    ShellSandbox.Wrapped wrapped = sandbox.wrap(List.of("/bin/sh", "-c", script), layer.project(), false);
    List<String> argv = new ArrayList<>();
    if (root) {
      argv.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
    }
    argv.addAll(support.enter(layer, wrapped.argv(), uid, uid));
    Process process = new ProcessBuilder(argv).directory(project.toFile()).redirectErrorStream(true)
        .redirectInput(new File("/dev/null")).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    assertThat(out).as("the command runs as the user and sees its own writes at once").startsWith(uid + "\n")
        .endsWith("tracked\nmore\n");
    assertThat(project.resolve("tracked.txt")).as("the project is untouched until the layer is applied").hasContent("tracked");
    assertThat(project.resolve("new.txt")).doesNotExist();
    assertThat(project.resolve("gone.txt")).exists();
    assertThat(owner(layer.upper().resolve("new.txt"))).as("the layer's files are the user's").isEqualTo(uid);

    Set<String> mountPoints = new HashSet<>();
    wrapped.placeholders().forEach(p -> mountPoints.add(layer.project().relativize(p).toString()));
    LayerChanges changes = UpperReader.read(layer.upper(), layer.project(), mountPoints);
    List<String> told = new ArrayList<>();
    LayerApply.Result result = LayerApply.apply(layer, changes.changes(), ApplyBases.UNKNOWN,
        (b, o, t) -> Optional.empty(), (path, current, after) -> told.add(path));
    assertThat(result.clashes()).isEmpty();
    assertThat(told).containsExactlyInAnyOrder("new.txt", "tracked.txt", "gone.txt", "old/inside.txt", "old/sub/made.txt");
    assertThat(project.resolve("tracked.txt")).hasContent("tracked\nmore");
    assertThat(project.resolve("new.txt")).hasContent("new");
    assertThat((Integer) Files.getAttribute(project.resolve("new.txt"), "unix:mode") & 07777).isEqualTo(0700);
    assertThat(project.resolve("gone.txt")).doesNotExist();
    assertThat(project.resolve("old/inside.txt")).doesNotExist();
    assertThat(project.resolve("old/sub/made.txt")).hasContent("made");
    // (directories are made by the apply, as whoever runs Waymark: the same user outside this test)
    for (String made : List.of("new.txt", "tracked.txt", "old/sub/made.txt")) {
      assertThat(owner(project.resolve(made))).as("%s is the user's", made).isEqualTo(uid);
    }
  }

  private static long owner(Path path) throws IOException {
    return (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  private static void chownAll(Path root, int id) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.toList()) {
        Files.setAttribute(p, "unix:uid", id, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", id, LinkOption.NOFOLLOW_LINKS);
      }
    }
  }
}
