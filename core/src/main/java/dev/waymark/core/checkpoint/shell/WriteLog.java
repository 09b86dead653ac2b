package dev.waymark.core.checkpoint.shell;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.ExclusiveFile;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tab wrote which content to which path, for every tab of every Waymark process on one
 * project: an append-only file in the store. A shell command's changes are compared with it, so
 * that what another tab wrote while the command ran (and recorded in its own checkpoint) is not
 * taken for the command's work, and undoing the command never deletes another tab's file.
 */
public final class WriteLog {
  private static final Logger LOG = LoggerFactory.getLogger(WriteLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long COMPACT_BYTES = 4 << 20;
  private static final long KEEP_MILLIS = 3_600_000;

  /**
   * One write; {@code blob} null for a deletion. {@code prior} is what the writer recorded the
   * path held before it ({@link #ABSENT} for nothing), null when the line does not say (written
   * by an older Waymark).
   */
  public record Write(long millis, String tab, String path, String blob, String prior) {
    static final String ABSENT = "-";

    public boolean wrote(FileVersion version) {
      return version.exists() ? version.blob().name().equals(blob) : blob == null;
    }

    /** The blob the writer replaced: null for none (or when the line does not say). */
    public String priorBlob() {
      return prior == null || prior.equals(ABSENT) ? null : prior;
    }

    /** Whether the writer saw {@code version} there before it wrote (true when the line does not say). */
    public boolean replaced(FileVersion version) {
      return prior == null || (version.exists() ? version.blob().name().equals(prior) : prior.equals(ABSENT));
    }
  }

  private final Path file;
  private final long limitBytes;
  /**
   * Other logs that get each write too, with the path as they name it (null: not theirs) and the
   * tab as {@code tabPrefix + tab}: those of nested or enclosing projects.
   */
  private Supplier<List<Mirror>> mirrors = List::of;

  /** A log that gets this one's writes, with their paths as {@code path} names them (null: left out). */
  public record Mirror(WriteLog log, UnaryOperator<String> path, String tabPrefix) {}

  public void mirrorTo(Supplier<List<Mirror>> mirrors) {
    this.mirrors = mirrors;
  }
  private Runnable beforeCompactionReplaces = () -> {};

  public WriteLog(Path file) {
    this(file, COMPACT_BYTES);
  }

  public WriteLog(Path file, long limitBytes) {
    this.file = file;
    this.limitBytes = limitBytes;
  }

  /** Notes that {@code tab} wrote each change's "after" side over its "before" side; never fails the caller. */
  public void append(String tab, List<FileChange> changes, long millis) {
    if (changes.isEmpty()) {
      return;
    }
    appendHere(tab, changes, millis);
    for (Mirror mirror : mirrors.get()) {
      List<FileChange> theirs = new ArrayList<>();
      for (FileChange change : changes) {
        String path = mirror.path().apply(change.path());
        if (path != null) {
          theirs.add(new FileChange(path, change.before(), change.after()));
        }
      }
      if (!theirs.isEmpty()) {
        mirror.log().appendHere(mirror.tabPrefix() + tab, theirs, millis);
      }
    }
  }

  private void appendHere(String tab, List<FileChange> changes, long millis) {
    StringBuilder lines = new StringBuilder(changes.size() * 136);
    for (FileChange change : changes) {
      ObjectId blob = change.after().exists() ? change.after().blob() : null;
      String prior = change.before().exists() ? change.before().blob().name() : Write.ABSENT;
      line(lines, new Write(millis, tab, change.path(), blob == null ? null : blob.name(), prior));
    }
    try {
      // cutting the log short replaces the file: a note appended to the old one meanwhile would be lost
      ExclusiveFile.with(file, () -> {
        WaymarkHome.writePrivate(file, lines.toString().getBytes(StandardCharsets.UTF_8), true);
        if (Files.size(file) > limitBytes) {
          compact(millis - KEEP_MILLIS);
        }
        return null;
      });
    } catch (IOException e) {
      LOG.warn("could not note writes in {}: {}", file, e.toString());
    }
  }

  /** The writes noted at or after {@code sinceMillis}. */
  public List<Write> since(long sinceMillis) {
    List<Write> writes = new ArrayList<>();
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException none) {
      return writes;
    } catch (IOException e) {
      LOG.warn("could not read {}: {}", file, e.toString());
      return writes;
    }
    for (String line : lines) {
      try {
        int tab = line.indexOf('\t');
        long millis = Long.parseLong(line, 0, tab, 10);
        if (millis < sinceMillis) {
          continue; // most lines: older than the command, never parsed further
        }
        int blob = line.indexOf('\t', tab + 1);
        int path = line.indexOf('\t', blob + 1);
        String ids = line.substring(blob + 1, path);
        int arrow = ids.indexOf('<');
        String id = arrow < 0 ? ids : ids.substring(0, arrow);
        writes.add(new Write(millis, line.substring(tab + 1, blob), JSON.readValue(line.substring(path + 1), String.class),
            id.equals("-") ? null : id, arrow < 0 ? null : ids.substring(arrow + 1)));
      } catch (IOException | RuntimeException damaged) {
        // a line cut by a crash: the others still count
      }
    }
    return writes;
  }

  /**
   * {@code millis TAB tab TAB blob-or--<prior-or-- TAB "path as a JSON string"}: the path may hold
   * tabs or newlines. An older Waymark reads {@code blob<prior} as a blob no file has, so it takes
   * no such write for another tab's: it records the change itself, and loses nothing.
   */
  private static void line(StringBuilder out, Write w) {
    try {
      out.append(w.millis()).append('\t').append(w.tab()).append('\t').append(w.blob() == null ? "-" : w.blob());
      if (w.prior() != null) {
        out.append('<').append(w.prior());
      }
      out.append('\t').append(JSON.writeValueAsString(w.path())).append('\n');
    } catch (IOException e) {
      throw new IllegalStateException(e); // a string always serialises
    }
  }

  private void compact(long beforeMillis) throws IOException {
    List<Write> kept = since(beforeMillis);
    StringBuilder lines = new StringBuilder();
    for (Write w : kept) {
      line(lines, w);
    }
    beforeCompactionReplaces.run();
    WaymarkHome.replacePrivate(file, lines.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** For tests: runs between reading the log and replacing it with what it keeps. */
  void beforeCompactionReplaces(Runnable hook) {
    this.beforeCompactionReplaces = hook;
  }
}
