package dev.waymark.core.checkpoint.lib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code lstat} says of an entry, read on the fast path (the JDK's own result, field by field)
 * exactly as the public attribute map says it.
 */
class FileStatTest {
  @TempDir
  Path dir;

  @Test
  void theFastPathIsOnWhereTheBuildOpensTheJdksFileSystemPackage() {
    assumeTrue(FileStat.unixAttributes(), "a file system without unix attributes");
    // surefire and the jar's manifest open sun.nio.fs: a walk of 100,000 files must not make a map per file
    assertTrue(FileStat.readsFields(), "FileStat fell back to the attribute map");
  }

  @Test
  void everyKindOfEntryReadsTheSameOnBothPaths() throws Exception {
    assumeTrue(FileStat.readsFields());
    Path file = Files.writeString(dir.resolve("plain.txt"), "hello\n");
    Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2020-02-03T04:05:06.123456789Z")));
    Path script = Files.writeString(dir.resolve("run.sh"), "#!/bin/sh\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-x---"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), Path.of("plain.txt"));
    Path dangling = Files.createSymbolicLink(dir.resolve("dangling"), Path.of("nowhere"));
    Path sub = Files.createDirectory(dir.resolve("sub"));
    Path empty = Files.createFile(dir.resolve("naïve empty"));
    for (Path p : new Path[] {file, script, link, dangling, sub, empty}) {
      assertEquals(FileStat.readFromMap(p), FileStat.read(p), p.toString());
    }
    assertEquals(FileKind.EXECUTABLE, FileStat.read(script).kind());
    assertEquals(FileKind.SYMLINK, FileStat.read(link).kind());
    assertTrue(FileStat.read(sub).directory());
    assertEquals(Instant.parse("2020-02-03T04:05:06.123456789Z").getEpochSecond() * 1_000_000_000L + 123_456_789,
        FileStat.read(file).mtimeNanos());
  }

  @Test
  void aRewriteThatPutsTheOldTimeBackIsSeenByItsChangeTime() throws Exception {
    assumeTrue(FileStat.readsFields());
    Path file = Files.writeString(dir.resolve("a.txt"), "one\n");
    FileTime time = Files.getLastModifiedTime(file);
    FileStat before = FileStat.read(file);
    FileTime changed = (FileTime) Files.getAttribute(file, "unix:ctime");
    long end = System.nanoTime() + 10_000_000_000L;
    do { // rewritten until the file system's coarse clock gives it a later change time (a tick: a few ms)
      Files.writeString(file, "two\n");
      Files.setLastModifiedTime(file, time);
    } while (((FileTime) Files.getAttribute(file, "unix:ctime")).compareTo(changed) <= 0 && System.nanoTime() < end);
    FileStat after = FileStat.read(file);
    assertEquals(before.mtimeNanos(), after.mtimeNanos());
    assertNotEquals(before.ctimeNanos(), after.ctimeNanos());
    assertNotEquals(before, after);
  }

  @Test
  void aMissingEntryOrAPathThroughAFileIsMissing() throws Exception {
    Files.writeString(dir.resolve("f"), "x");
    assertSame(FileStat.MISSING, FileStat.read(dir.resolve("nothing")));
    // ENOTDIR: a directory replaced by a file while a walk or an update looks below it
    assertSame(FileStat.MISSING, FileStat.read(dir.resolve("f/below")));
    assertSame(FileStat.MISSING, FileStat.readFromMap(dir.resolve("f/below/deeper")));
  }
}
