package dev.waymark.core.checkpoint.store;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The small file a restore writes before it touches the project: for each path, what was on
 * disk and what goes there. Every blob it names is in the shadow repository before it is
 * written, so an interrupted restore can always be rolled back.
 */
public final class RestoreJournal {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One path; a mode is the permission bits in octal, null when none was recorded (and in older journals). */
  public record Entry(String path, String priorKind, String priorBlob, String nextKind, String nextBlob, String priorMode,
      String nextMode) {
    public static Entry of(String path, FileVersion prior, FileVersion next) {
      return new Entry(path, prior.kind().name(), prior.exists() ? prior.blob().name() : null,
          next.kind().name(), next.exists() ? next.blob().name() : null, mode(prior), mode(next));
    }

    public FileVersion prior() {
      return version(priorKind, priorBlob, priorMode);
    }

    public FileVersion next() {
      return version(nextKind, nextBlob, nextMode);
    }

    private static String mode(FileVersion version) {
      return version.hasMode() ? FileModes.octal(version.mode()) : null;
    }

    private static FileVersion version(String kind, String blob, String mode) {
      FileKind k = FileKind.valueOf(kind);
      return k == FileKind.ABSENT ? FileVersion.ABSENT : new FileVersion(k, ObjectId.fromString(blob), FileModes.parse(mode));
    }
  }

  public record Content(int format, String tab, int from, int target, List<Entry> entries) {}

  private RestoreJournal() {}

  public static void write(Path file, Content content) throws IOException {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(temp, JSON.writeValueAsBytes(content));
    try {
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  public static Optional<Content> read(Path file) throws IOException {
    Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".tmp"));
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    return Optional.of(JSON.readValue(file.toFile(), Content.class));
  }
}
