package dev.waymark.core.checkpoint.project;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user's object database, read only: the earlier content of a file the index vouched for, as
 * its bytes were (a blob git stored with CRLF turned into LF is taken back only when the sizes
 * prove it). Opened on first use.
 */
public final class UserObjects implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UserObjects.class);

  private final Path workTree;
  private final Path commonDir;
  private final String projectPrefix;
  /** core.autocrlf is true or input: git may store any text file with LF for CRLF. */
  private final boolean normalisesEverything;
  private FileRepository objects;

  UserObjects(Path workTree, Path commonDir, String projectPrefix, boolean normalisesEverything) {
    this.workTree = workTree;
    this.commonDir = commonDir;
    this.projectPrefix = projectPrefix;
    this.normalisesEverything = normalisesEverything;
  }

  /** Opens the object database ahead of the first read, which then does not wait for its pack indexes to load. */
  synchronized void open() {
    try {
      if (objects == null) {
        objects = new FileRepository(commonDir.toFile());
      }
      try (ObjectReader reader = objects.newObjectReader()) {
        reader.has(ObjectId.zeroId());
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("cannot open the objects of {}: {}", commonDir, e.toString());
    }
  }

  /**
   * Reads a blob from the user's object database, checking that it has the size the file had
   * (else the index named content that is not the file's bytes). Empty when it is not there.
   */
  synchronized Optional<byte[]> readBlob(ObjectId blob, long expectedSize, BooleanSupplier crlfMayBeGone) {
    try {
      if (objects == null) {
        objects = new FileRepository(commonDir.toFile());
      }
      return readBlob(objects, blob, expectedSize, crlfMayBeGone);
    } catch (IOException | RuntimeException e) {
      LOG.info("cannot read blob {} from {}: {}", blob.name(), commonDir, e.toString());
      return Optional.empty();
    }
  }

  /**
   * {@code blob} from {@code objects} if it is there with {@code expectedSize} bytes (else the index
   * named other content). With {@code crlfMayBeGone} (git turned CRLF into LF as it stored the
   * file), a smaller blob is taken with each LF a CRLF again when that makes exactly
   * {@code expectedSize} bytes: every line of the file ended in CRLF, and those are its bytes.
   */
  public static Optional<byte[]> readBlob(Repository objects, ObjectId blob, long expectedSize,
      BooleanSupplier crlfMayBeGone) throws IOException {
    try (ObjectReader reader = objects.newObjectReader()) {
      if (!reader.has(blob, Constants.OBJ_BLOB)) {
        return Optional.empty();
      }
      ObjectLoader loader = reader.open(blob, Constants.OBJ_BLOB);
      if (loader.getSize() == expectedSize) {
        return Optional.of(loader.getCachedBytes(Integer.MAX_VALUE - 8));
      }
      if (loader.getSize() > expectedSize || expectedSize > Integer.MAX_VALUE - 8 || !crlfMayBeGone.getAsBoolean()) {
        return Optional.empty();
      }
      return withCrlf(loader.getCachedBytes(Integer.MAX_VALUE - 8), expectedSize);
    }
  }

  /** {@code lf} with CR before each LF, if that is exactly {@code size} bytes long. */
  static Optional<byte[]> withCrlf(byte[] lf, long size) {
    int lines = 0;
    for (byte b : lf) {
      if (b == '\n') {
        lines++;
      }
    }
    if (lf.length + (long) lines != size) {
      return Optional.empty();
    }
    byte[] crlf = new byte[(int) size];
    int at = 0;
    for (byte b : lf) {
      if (b == '\n') {
        crlf[at++] = '\r';
      }
      crlf[at++] = b;
    }
    return Optional.of(crlf);
  }

  /**
   * Whether git may have stored {@code path} (project-relative) with CRLF turned into LF: a
   * {@code text}, {@code eol} or {@code crlf} attribute applies to it (from {@code info/attributes}
   * or a {@code .gitattributes} on its way), or {@code core.autocrlf} is on. Read when a changed
   * file's blob is smaller than the file was; wider than git's own rules, which is safe, since
   * the blob is only taken when the sizes prove it.
   */
  boolean normalisesLineEndings(String path) {
    if (normalisesEverything) {
      return true;
    }
    String repoPath = projectPrefix + path;
    List<String> onItsWay = new ArrayList<>();
    for (int slash = repoPath.indexOf('/'); slash >= 0; slash = repoPath.indexOf('/', slash + 1)) {
      onItsWay.add(repoPath.substring(0, slash + 1) + ".gitattributes");
    }
    try {
      return Conversions.read(workTree, commonDir, onItsWay, Conversions::touchesLineEndings).converts(repoPath);
    } catch (IOException e) {
      return true; // cannot tell: the sizes still decide
    }
  }

  @Override
  public synchronized void close() {
    if (objects != null) {
      objects.close();
      objects = null;
    }
  }
}
