package dev.waymark.core.checkpoint.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The name of a project's store directory under the data directory: readable (the project's own
 * name) and stable (a hash of its canonical path), so that two projects of one name never share.
 */
public final class ProjectId {
  private ProjectId() {}

  /** A readable, stable directory name for a canonical project path. */
  public static String of(Path canonicalProject) {
    String name = canonicalProject.getFileName() == null ? "root" : canonicalProject.getFileName().toString();
    String safe = name.replaceAll("[^A-Za-z0-9._-]", "_");
    if (safe.length() > 40) {
      safe = safe.substring(0, 40);
    }
    String hash;
    try {
      hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(canonicalProject.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
    return safe + "-" + hash.substring(0, 16);
  }
}
