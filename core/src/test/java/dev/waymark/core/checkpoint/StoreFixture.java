package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Ref;

/**
 * A project directory and a Waymark home side by side in a temporary directory, with helpers
 * that act as a tool would: write a file and record the change in the running turn.
 */
final class StoreFixture implements AutoCloseable {
  final Path project;
  final Path home;
  final ShadowStore store;

  StoreFixture(Path tempDir) throws IOException {
    this(tempDir, RetentionPolicy.DEFAULT, Clock.systemUTC());
  }

  StoreFixture(Path tempDir, RetentionPolicy retention, Clock clock) throws IOException {
    project = Files.createDirectories(tempDir.resolve("project"));
    home = Files.createDirectories(tempDir.resolve("home"));
    store = ShadowStore.open(project, new WaymarkHome(home), retention, clock);
  }

  /** A second store over the same project and home: another process's, or this one's after a restart. */
  ShadowStore openAgain() {
    return ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT);
  }

  static Clock fixedClock(String instant) {
    return Clock.fixed(Instant.parse(instant), ZoneOffset.UTC);
  }

  Path file(String path) {
    return project.resolve(path);
  }

  String read(String path) throws IOException {
    return Files.readString(file(path), UTF_8);
  }

  boolean exists(String path) {
    return Files.exists(file(path), LinkOption.NOFOLLOW_LINKS);
  }

  /** Writes a file as an agent tool would, recording the change in {@code turn}. */
  void write(Turn turn, String path, String content) throws IOException {
    FileState before = turn.read(path);
    writeExternally(path, content);
    turn.recordFromDisk(path, before);
  }

  void delete(Turn turn, String path) throws IOException {
    FileState before = turn.read(path);
    Files.delete(file(path));
    turn.recordFromDisk(path, before);
  }

  /** Changes a file behind Waymark's back, as the user or a formatter would. */
  void writeExternally(String path, String content) throws IOException {
    Path target = file(path);
    Files.createDirectories(target.getParent());
    Files.writeString(target, content, UTF_8);
  }

  /** One finished turn that writes {@code path}. */
  Checkpoint turn(CheckpointTree tree, String path, String content) throws IOException {
    Turn turn = tree.begin();
    write(turn, path, content);
    return turn.finish(CheckpointStatus.DONE);
  }

  /** One finished turn that writes {@code path} then {@code path2}. */
  Checkpoint turn(CheckpointTree tree, String path, String content, String path2, String content2) throws IOException {
    Turn turn = tree.begin();
    write(turn, path, content);
    write(turn, path2, content2);
    return turn.finish(CheckpointStatus.DONE);
  }

  /** What write_file does: the change recorded ahead, under the running checkpoint's tag, then the file written. */
  void writeAhead(Turn turn, String path, String content) throws IOException {
    turn.recordAhead(path, turn.read(path), FileState.regular(content));
    writeExternally(path, content);
  }

  List<String> tags(String tabId) {
    return store.repo().refs(TagNames.tabPrefix(tabId)).stream().map(Ref::getName).sorted().collect(Collectors.toList());
  }

  /** Every regular file and link in the project, relative, sorted. */
  List<String> projectFiles() throws IOException {
    try (Stream<Path> walk = Files.walk(project)) {
      return walk.filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
          .map(p -> project.relativize(p).toString()).sorted().collect(Collectors.toList());
    }
  }

  @Override
  public void close() {
    store.close();
  }
}
