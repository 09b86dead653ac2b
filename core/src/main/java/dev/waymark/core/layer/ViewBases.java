package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * What the project held at each path when an isolated tab's {@link View} first changed it: the base
 * a land merges from. A regular file's bytes are kept whole; any other entry, or none, as absent.
 * One file per path, named by a hash of the path, written before the view changes the path: what
 * a kill leaves is a base too early, never a change without one.
 */
public final class ViewBases implements ApplyBases {
  private static final String ABSENT = ".absent";
  /** Someone changed the path while the command that first changed it in the view ran: what it held before is not known. */
  private static final String UNKNOWN = ".unknown";

  private final Path dir;

  ViewBases(Path dir) {
    this.dir = dir;
  }

  Path directory() {
    return dir;
  }

  /** Keeps what {@code project} holds at {@code path} now, unless a base of it is kept already. */
  void note(Path project, String path) throws IOException {
    String key = key(path);
    if (noted(path)) {
      return;
    }
    Files.createDirectories(dir);
    Path file = project.resolve(path);
    Path temp = dir.resolve(key + ".tmp");
    if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !hiddenBelowLink(project, path)) {
      Files.copy(file, temp, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
      Files.move(temp, dir.resolve(key), StandardCopyOption.ATOMIC_MOVE);
    } else {
      Files.write(temp, new byte[0]);
      Files.move(temp, dir.resolve(key + ABSENT), StandardCopyOption.ATOMIC_MOVE);
    }
  }

  /**
   * Notes that what the project held at {@code path} before the view changed it is not known (it
   * changed while the command that did ran): a land then merges nothing into it and keeps the
   * project's version unless the view's is the same.
   */
  void noteUnknown(String path) throws IOException {
    if (noted(path)) {
      return;
    }
    Files.createDirectories(dir);
    String key = key(path);
    Path temp = dir.resolve(key + ".tmp");
    Files.write(temp, new byte[0]);
    Files.move(temp, dir.resolve(key + UNKNOWN), StandardCopyOption.ATOMIC_MOVE);
  }

  /** Keeps {@code bytes} (null: absent) as the base of {@code path}, unless one is kept already: a view put back as it was. */
  void put(String path, byte[] bytes) throws IOException {
    if (noted(path)) {
      return;
    }
    Files.createDirectories(dir);
    String key = key(path);
    Path temp = dir.resolve(key + ".tmp");
    Files.write(temp, bytes == null ? new byte[0] : bytes);
    Files.move(temp, dir.resolve(bytes == null ? key + ABSENT : key), StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public Optional<byte[]> base(String path) {
    try {
      Path file = dir.resolve(key(path));
      if (Files.exists(file)) {
        return Optional.of(Files.readAllBytes(file));
      }
      return Files.exists(dir.resolve(key(path) + ABSENT)) ? Optional.of(new byte[0]) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  @Override
  public boolean existed(String path) {
    return Files.exists(dir.resolve(key(path))) || unknown(path);
  }

  /** Whether a base of {@code path} is kept (the view changed it at some point), known or not. */
  public boolean noted(String path) {
    String key = key(path);
    return Files.exists(dir.resolve(key)) || Files.exists(dir.resolve(key + ABSENT)) || Files.exists(dir.resolve(key + UNKNOWN));
  }

  /** Whether what the project held at {@code path} before the view changed it is not known ({@link #noteUnknown}). */
  public boolean unknown(String path) {
    return Files.exists(dir.resolve(key(path) + UNKNOWN));
  }

  /**
   * Whether {@code file}, the project's entry at {@code path} now, differs from the base: someone
   * changed it after the view first changed it. Without a base, whether it exists.
   */
  boolean changedSinceBase(String path, Path file) throws IOException {
    if (unknown(path)) {
      return true;
    }
    boolean exists = Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS);
    Path base = dir.resolve(key(path));
    if (Files.exists(base)) {
      return !exists || Files.size(base) != Files.size(file)
          || !Arrays.equals(Files.readAllBytes(base), Files.readAllBytes(file));
    }
    if (Files.exists(dir.resolve(key(path) + ABSENT))) {
      return Files.exists(file, LinkOption.NOFOLLOW_LINKS);
    }
    return exists;
  }

  private static String key(String path) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(path.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether a directory on the way to {@code path} in {@code project} is a link (the view reads nothing through one). */
  static boolean hiddenBelowLink(Path project, String path) {
    Path at = project;
    String[] segments = path.split("/");
    for (int i = 0; i < segments.length - 1; i++) {
      at = at.resolve(segments[i]);
      if (Files.isSymbolicLink(at)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the project's entry at {@code path} in {@code project} is there and changed after {@code started}. */
  static boolean changedSince(Path project, String path, FileTime started) throws IOException {
    if (ViewBases.hiddenBelowLink(project, path)) {
      return false;
    }
    try {
      FileTime changed = (FileTime) Files.getAttribute(project.resolve(path), "unix:ctime", LinkOption.NOFOLLOW_LINKS);
      return changed.compareTo(started) > 0;
    } catch (NoSuchFileException | NotDirectoryException absent) {
      return false;
    }
  }}
