package dev.waymark.core.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;

/**
 * The files the sandbox itself needs outside any command's reach: the seccomp program bwrap
 * reads, and the empty file mounted over a hidden one. They live in the policy's private
 * directory (Waymark's data directory, hidden from commands), else in a temporary directory of
 * this process, which the sandbox hides too.
 */
final class PrivateFiles {
  private static Path ownDir;

  private PrivateFiles() {}

  /** The directory of {@code policy}'s files, made (readable by its owner only) if missing. */
  static Path dir(SandboxPolicy policy) throws IOException {
    if (policy.privateDir() != null) {
      return made(policy.privateDir());
    }
    synchronized (PrivateFiles.class) {
      if (ownDir == null) {
        ownDir = Files.createTempDirectory("waymark-sandbox-");
        ownDir.toFile().deleteOnExit();
      }
      return ownDir;
    }
  }

  /** {@code dir}, made readable by its owner only if missing: Waymark's data directory, whoever makes it first. */
  private static Path made(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
    return dir;
  }

  /** This process's own directory, when {@code policy} names none: commands must not see it either. */
  static Optional<Path> ownDir(SandboxPolicy policy) {
    if (policy.privateDir() != null) {
      return Optional.empty();
    }
    try {
      return Optional.of(dir(policy));
    } catch (IOException e) {
      return Optional.empty(); // none made: nothing of this process's to hide
    }
  }

  /** {@code program}'s file, written unless it is there already with these bytes. */
  static Path filter(SandboxPolicy policy, SocketFilter program) throws IOException {
    Path file = program.writeTo(dir(policy));
    if (policy.privateDir() == null) {
      file.toFile().deleteOnExit(); // before its directory, which is deleted only once empty
    }
    return file;
  }

  /** {@code file}, the seccomp program, written again if something removed it: a command never starts without it. */
  static Path filterAgain(Path file) {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      try {
        SocketFilter.here().orElseThrow().writeTo(made(file.getParent()));
      } catch (IOException | RuntimeException e) {
        // the opener cannot open it, and the command does not run: closed, not open
      }
    }
    return file;
  }

  /**
   * An empty read-only file to mount over a hidden one, so that a program that reads it (npm its
   * ~/.npmrc) still runs; {@code /dev/null} if it cannot be made, which on the sandbox's nodev
   * mount opens for nobody: hidden still.
   */
  static Path empty(SandboxPolicy policy) {
    try {
      Path file = dir(policy).resolve("empty");
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) != 0) {
        Path temp = Files.createTempFile(file.getParent(), "empty-", ".tmp");
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("r--r--r--"));
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (policy.privateDir() == null) {
          file.toFile().deleteOnExit();
        }
      }
      return file;
    } catch (IOException e) {
      return Path.of("/dev/null");
    }
  }
}
