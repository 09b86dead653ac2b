package dev.waymark.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** Listings of a directory tree that tests compare before and after, and small file helpers. */
public final class FileTrees {
  private FileTrees() {}

  /**
   * Every directory, file and link under {@code root} (links never followed), keyed by relative
   * path: kind, permission bits, size and SHA-256 of the bytes, a link's target, and with
   * {@code withMtime} the modification time too, so that a rewrite with equal bytes shows.
   */
  public static SortedMap<String, String> snapshot(Path root, boolean withMtime, Predicate<String> include) {
    SortedMap<String, String> entries = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        if (p.equals(root)) {
          continue;
        }
        String rel = root.relativize(p).toString();
        if (!include.test(rel)) {
          continue;
        }
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        String mode = PosixFilePermissions.toString(a.permissions());
        String mtime = withMtime ? " mtime=" + a.lastModifiedTime().toInstant() : "";
        if (a.isSymbolicLink()) {
          entries.put(rel, "link -> " + Files.readSymbolicLink(p));
        } else if (a.isDirectory()) {
          entries.put(rel, "dir " + mode + mtime);
        } else {
          entries.put(rel, "file " + mode + " " + a.size() + " " + sha256(p) + mtime);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return entries;
  }

  public static SortedMap<String, String> snapshot(Path root, boolean withMtime) {
    return snapshot(root, withMtime, rel -> true);
  }

  /** Relative paths of every entry under {@code root}, directories included, sorted. */
  public static List<String> listing(Path root) {
    return List.copyOf(snapshot(root, false).keySet()); // a sorted map's keys: already in order
  }

  public static String sha256(Path file) {
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
