package dev.waymark.core.share;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;

/**
 * A text the user asked to keep in a file they named ({@code /export-chat notes.md}): the name is
 * read relative to the project, or {@code ~/} to the home; an existing file is replaced only when
 * asked, and then whole (written beside it and moved over it), so a failure leaves it as it was.
 */
public final class ExportFile {
  private ExportFile() {}

  /** Why nothing was written. */
  public enum Refusal {
    /** No name, or one the file system cannot hold. */
    BAD_NAME,
    /** A directory has that name. */
    DIRECTORY,
    /** The directory it would go in does not exist. */
    NO_DIRECTORY,
    /** A file has that name, and replacing it was not asked for. */
    EXISTS,
    /** The file system refused (permissions, space). */
    FAILED
  }

  /**
   * What happened: {@code file} is where the name led (null for a bad name); {@code refusal} empty
   * when it was written, {@code replaced} when a file was there before; {@code problem} the file
   * system's own words for a failure.
   */
  public record Outcome(Path file, Optional<Refusal> refusal, boolean replaced, String problem) {
    public boolean written() {
      return refusal.isEmpty();
    }
  }

  /** Writes {@code text} as UTF-8 to the file {@code named} leads to from {@code base}; {@code replace}: over one there. */
  public static Outcome write(Path base, Path home, String named, String text, boolean replace) {
    Path file;
    try {
      String name = named == null ? "" : named.strip();
      if (name.isEmpty() || name.equals("~")) {
        return refused(null, Refusal.BAD_NAME, "");
      }
      file = (name.startsWith("~/") ? home.resolve(name.substring(2)) : base.resolve(name)).toAbsolutePath().normalize();
    } catch (InvalidPathException e) {
      return refused(null, Refusal.BAD_NAME, e.getReason());
    }
    if (Files.isDirectory(file)) {
      return refused(file, Refusal.DIRECTORY, "");
    }
    Path parent = file.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      return refused(file, Refusal.NO_DIRECTORY, "");
    }
    boolean there = Files.exists(file, LinkOption.NOFOLLOW_LINKS);
    if (there && !replace) {
      return refused(file, Refusal.EXISTS, "");
    }
    Path temporary = null;
    try {
      temporary = Files.createTempFile(parent, "." + file.getFileName() + ".", ".tmp");
      Files.writeString(temporary, text, StandardCharsets.UTF_8);
      if (there) {
        move(temporary, file);
      } else {
        Files.move(temporary, file); // without replacing: one made meanwhile is not overwritten unasked
      }
      return new Outcome(file, Optional.empty(), there, "");
    } catch (FileAlreadyExistsException e) {
      return refused(file, Refusal.EXISTS, "");
    } catch (IOException e) {
      return refused(file, Refusal.FAILED, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    } finally {
      if (temporary != null) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException e) {
          // left behind: a dot file beside the export
        }
      }
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static Outcome refused(Path file, Refusal why, String problem) {
    return new Outcome(file, Optional.of(why), false, problem);
  }
}
