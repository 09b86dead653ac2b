package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileState;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * What an agent's file tools do to a project, each step recorded in the running turn the way a
 * tool must: a write is recorded ahead and then made, as write_file does; what only a shell
 * command can do (chmod, links, deletes) is read first, done, then recorded from disk.
 */
final class AgentTool {
  private final Path project;

  AgentTool(Path project) {
    this.project = project;
  }

  Path file(String path) {
    return project.resolve(path);
  }

  /** As write_file does: the change recorded ahead (keeping the file's mode), then the file written. */
  void write(Turn turn, String path, byte[] content) throws IOException {
    FileState before = turn.read(path);
    int mode = before.kind() == FileKind.REGULAR || before.kind() == FileKind.EXECUTABLE ? before.mode()
        : FileModes.newFileMode();
    turn.recordAhead(path, before, FileState.withMode(content, mode));
    Path target = file(path);
    Files.createDirectories(target.getParent());
    Files.deleteIfExists(target); // a link is replaced, never written through
    Files.write(target, content);
    FileModes.set(target, mode);
  }

  void write(Turn turn, String path, String utf8) throws IOException {
    write(turn, path, utf8.getBytes(UTF_8));
  }

  /** Sets the permission bits, e.g. {@code rwxr-xr-x}. */
  void chmod(Turn turn, String path, String permissions) throws IOException {
    FileState before = turn.read(path);
    Files.setPosixFilePermissions(file(path), PosixFilePermissions.fromString(permissions));
    turn.recordFromDisk(path, before);
  }

  /** Creates or replaces {@code path} with a symbolic link to {@code target}. */
  void symlink(Turn turn, String path, String target) throws IOException {
    FileState before = turn.read(path);
    Path link = file(path);
    Files.createDirectories(link.getParent());
    Files.deleteIfExists(link);
    Files.createSymbolicLink(link, Path.of(target));
    turn.recordFromDisk(path, before);
  }

  /** Deletes the file, then each parent directory that this left empty (as {@code rm} plus cleanup would). */
  void delete(Turn turn, String path) throws IOException {
    FileState before = turn.read(path);
    Path target = file(path);
    Files.delete(target);
    for (Path dir = target.getParent(); !dir.equals(project); dir = dir.getParent()) {
      try (var entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          break;
        }
      }
      Files.delete(dir);
    }
    turn.recordFromDisk(path, before);
  }

  byte[] bytes(String path) throws IOException {
    return Files.readAllBytes(file(path));
  }

  String text(String path) throws IOException {
    return Files.readString(file(path), UTF_8);
  }

  boolean exists(String path) {
    return Files.exists(file(path), LinkOption.NOFOLLOW_LINKS);
  }

  String permissions(String path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(file(path), LinkOption.NOFOLLOW_LINKS));
  }
}
