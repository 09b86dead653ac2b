package dev.waymark.core.tool;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.model.Cancellation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A project, a directory outside it, and a Waymark home side by side in a temporary directory;
 * one tab with a running turn; and the standard tools, called as the agent loop calls them.
 */
final class ToolFixture implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  final Path project;
  final Path outside;
  final ShadowStore store;
  final CheckpointTree tab;
  final Tools tools;
  Turn turn;
  Cancellation cancellation = new Cancellation();

  ToolFixture(Path tempDir) throws IOException {
    this(tempDir, ToolSettings.DEFAULTS);
  }

  ToolFixture(Path tempDir, ToolSettings settings) throws IOException {
    this(tempDir, settings, List.of());
  }

  /** With {@code exclusions}: patterns the store leaves out of what shell commands are checked for. */
  ToolFixture(Path tempDir, ToolSettings settings, List<String> exclusions) throws IOException {
    this(tempDir, settings, exclusions, false);
  }

  /** With {@code isolated}: the tab works on a view of the project of its own (an isolated tab). */
  ToolFixture(Path tempDir, ToolSettings settings, List<String> exclusions, boolean isolated) throws IOException {
    project = Files.createDirectories(tempDir.resolve("project"));
    outside = Files.createDirectories(tempDir.resolve("outside"));
    Path home = Files.createDirectories(tempDir.resolve("home"));
    store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT, exclusions);
    tab = isolated ? store.newIsolatedTab(settings.sandbox().bwrap()) : store.openTab("tab1");
    tools = Tools.standard(settings);
    turn = tab.begin();
  }

  /** Arguments from alternating names and values. */
  static ObjectNode args(Object... namesAndValues) {
    ObjectNode node = JSON.createObjectNode();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      node.set((String) namesAndValues[i], JSON.valueToTree(namesAndValues[i + 1]));
    }
    return node;
  }

  ToolResult call(String tool, JsonNode arguments) {
    return tools.find(tool).orElseThrow().run(arguments, new ToolContext(project, turn, cancellation));
  }

  ToolResult call(String tool, Object... namesAndValues) {
    return call(tool, args(namesAndValues));
  }

  ToolResult shell(String command) {
    return call("run_shell", "command", command);
  }

  Path file(String path) {
    return project.resolve(path);
  }

  void write(String path, String content) throws IOException {
    Path target = file(path);
    Files.createDirectories(target.getParent());
    Files.writeString(target, content, UTF_8);
  }

  String read(String path) throws IOException {
    return Files.readString(file(path), UTF_8);
  }

  boolean exists(String path) {
    return Files.exists(file(path), LinkOption.NOFOLLOW_LINKS);
  }

  /** Finishes the running turn and starts the next one. */
  void nextTurn() {
    turn.finish(CheckpointStatus.DONE);
    turn = tab.begin();
  }

  void finish() {
    turn.finish(CheckpointStatus.DONE);
    turn = null;
  }

  /** Paths recorded in the running turn. */
  List<String> recorded() {
    return turn.changes().stream().map(FileChange::path).sorted().collect(Collectors.toList());
  }

  /**
   * Every file and link under the project (not under .git), with its bytes, or its link target,
   * and whether it is executable: what "byte for byte" means in the tests.
   */
  Map<String, String> tree() throws IOException {
    return tree(project);
  }

  /** {@link #tree()} of any directory (a reference the project is compared with). */
  static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        String rel = root.relativize(p).toString();
        if (rel.isEmpty() || rel.startsWith(".git/") || Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        if (Files.isSymbolicLink(p)) {
          files.put(rel, "link:" + Files.readSymbolicLink(p));
        } else {
          files.put(rel, (Files.isExecutable(p) ? "x:" : "f:")
              + HexFormat.of().formatHex(Files.readAllBytes(p)));
        }
      }
    }
    return files;
  }

  @Override
  public void close() {
    store.close();
  }
}
