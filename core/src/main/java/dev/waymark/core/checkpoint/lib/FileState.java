package dev.waymark.core.checkpoint.lib;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.Objects;

/**
 * The content of one path at one moment, as a tool saw it: used to record a change.
 *
 * <p>A symbolic link's content is its target, never what it points to. A directory is not a
 * file state: {@link #read(Path)} refuses it. A file read from disk carries its permission bits
 * ({@link #mode()}); two states are equal when their kind and bytes are, whatever their modes.
 */
public final class FileState {
  private static final FileState ABSENT = new FileState(FileKind.ABSENT, new byte[0], FileVersion.NO_MODE);

  private final FileKind kind;
  private final byte[] content;
  private final int mode;

  private FileState(FileKind kind, byte[] content, int mode) {
    this.kind = Objects.requireNonNull(kind);
    this.content = content;
    this.mode = FileModes.forKind(kind, mode);
  }

  private FileState(FileKind kind, byte[] content) {
    this(kind, content, FileVersion.NO_MODE);
  }

  public static FileState absent() {
    return ABSENT;
  }

  public static FileState regular(byte[] content) {
    return new FileState(FileKind.REGULAR, content.clone());
  }

  public static FileState regular(String utf8) {
    return new FileState(FileKind.REGULAR, utf8.getBytes(StandardCharsets.UTF_8));
  }

  public static FileState executable(byte[] content) {
    return new FileState(FileKind.EXECUTABLE, content.clone());
  }

  public static FileState symlink(String target) {
    return new FileState(FileKind.SYMLINK, target.getBytes(StandardCharsets.UTF_8));
  }

  public static FileState of(FileKind kind, byte[] content) {
    return kind == FileKind.ABSENT ? ABSENT : new FileState(kind, content.clone());
  }

  /** A regular or executable file with permission bits {@code mode} (its kind follows the owner's execute bit). */
  public static FileState withMode(byte[] content, int mode) {
    return mode == FileVersion.NO_MODE ? regular(content) : new FileState(FileModes.kindOf(mode), content.clone(), mode);
  }

  /** The same kind and content with permission bits {@code mode}. */
  public FileState withMode(int mode) {
    return kind == FileKind.ABSENT || kind == FileKind.SYMLINK ? this : new FileState(kind, content, mode);
  }

  /** Reads {@code file} without following a link; a missing file reads as {@link #absent()}. */
  public static FileState read(Path file) throws IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException missing) {
      return ABSENT;
    }
    if (attributes.isSymbolicLink()) {
      return symlink(Files.readSymbolicLink(file).toString());
    }
    if (attributes.isDirectory()) {
      throw new IOException(file + " is a directory, not a file");
    }
    if (!attributes.isRegularFile()) {
      // Reading a FIFO would wait for a writer forever; a device may never end.
      throw new IOException(file + " is a FIFO, socket or device, not a regular file");
    }
    int mode = FileModes.readWithSpecialBits(file);
    FileKind kind = mode == FileVersion.NO_MODE ? FileKind.REGULAR : FileModes.kindOf(mode);
    return new FileState(kind, Files.readAllBytes(file), mode);
  }

  /**
   * {@link #read(Path)} of a file whose {@code stat} was just taken: one look at it fewer, which a
   * command's thousands of new files add up to. A stat saying it is gone reads as absent.
   */
  public static FileState read(Path file, FileStat stat) throws IOException {
    if (stat.equals(FileStat.MISSING)) {
      return ABSENT;
    }
    if (stat.kind() != FileKind.REGULAR && stat.kind() != FileKind.EXECUTABLE) {
      return read(file); // a link, or what is no regular file: said as such there
    }
    int mode = stat.mode() & 07777;
    return new FileState(FileModes.kindOf(mode), Files.readAllBytes(file), mode);
  }

  public FileKind kind() {
    return kind;
  }

  public boolean exists() {
    return kind != FileKind.ABSENT;
  }

  /** The permission bits, or {@link FileVersion#NO_MODE} when they are not known (or this is no regular file). */
  public int mode() {
    return mode;
  }

  public byte[] content() {
    return content.clone();
  }

  public byte[] contentUnsafe() {
    return content;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FileState
        && ((FileState) o).kind == kind
        && Arrays.equals(((FileState) o).content, content);
  }

  @Override
  public int hashCode() {
    return 31 * kind.hashCode() + Arrays.hashCode(content);
  }

  @Override
  public String toString() {
    return kind == FileKind.ABSENT ? "absent"
        : kind + "(" + content.length + " bytes" + (mode == FileVersion.NO_MODE ? "" : ", " + FileModes.octal(mode)) + ")";
  }
}
