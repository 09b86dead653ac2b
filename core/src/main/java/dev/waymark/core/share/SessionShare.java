package dev.waymark.core.share;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TabBundles;
import dev.waymark.core.checkpoint.TabCopies;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code sessions export} and {@code sessions import}: a session, all its tabs' checkpoints,
 * branches, saves and conversations, in one git bundle, opened in another clone of the project.
 * The bundle carries {@value #SESSION} (the session file as it was saved) and {@value #BASE} (a
 * {@link ProjectBase}); import checks the base before it brings in a single tag, so a refused
 * import leaves nothing behind but unreferenced objects, which garbage collection takes.
 */
public final class SessionShare {
  static final String SESSION = "session.json";
  static final String BASE = "base.json";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How many differing files a refusal names; the rest are counted. */
  private static final int NAMED = 10;

  private SessionShare() {}

  /** What an export wrote: the session (its tabs those that went in), how many tags, how many paths its base holds, and notes. */
  public record Exported(SessionFile session, int tags, int basePaths, List<String> notes) {}

  /** What an import brought: the session (saved here) and how many tags; {@code notes} for the user. */
  public record Imported(SessionFile session, int tags, List<String> notes) {}

  /** Writes session {@code idOrName} of {@code files} and its tabs' tags to {@code file}. */
  public static Exported export(ShadowStore store, SessionStore files, String idOrName, Path file) {
    SessionFile whole = files.load(idOrName);
    List<String> notes = new ArrayList<>();
    SessionFile session = withoutIsolatedTabs(store, whole, notes);
    Set<String> paths = new TreeSet<>();
    session.tabs().forEach(tab -> tab.checkpoints().forEach(c -> c.changes().forEach(change -> paths.add(change.path()))));
    try {
      ProjectBase base = ProjectBase.of(store.projectDirectory(), paths);
      byte[] carried = session == whole ? Files.readAllBytes(files.file(session.id())) : SessionStore.bytes(session);
      int tags = TabBundles.write(store, session.tabs().stream().map(SessionFile.Tab::tabId).toList(),
          Map.of(SESSION, carried, BASE, JSON.writeValueAsBytes(base)), file);
      return new Exported(session, tags, paths.size(), notes);
    } catch (IOException | CheckpointException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not export session " + session.id() + " to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@code session} without its isolated tabs, each noted: an isolated tab's files are a view of its
   * own that a bundle does not carry, and its checkpoints, imported as a plain tab's, would write the
   * view's files into the other clone's project. Refused when every tab is isolated.
   */
  private static SessionFile withoutIsolatedTabs(ShadowStore store, SessionFile session, List<String> notes) {
    Set<String> isolated = new LinkedHashSet<>(); // asked with null too (no parent, no active tab)
    session.tabs().stream().map(SessionFile.Tab::tabId).filter(tab -> TabCopies.isolated(store, tab)).forEach(isolated::add);
    if (isolated.isEmpty()) {
      return session;
    }
    if (isolated.size() == session.tabs().size()) {
      throw new SessionException(ErrorKind.REFUSED, "Session " + session.id() + " was not exported: every tab of it is isolated (its "
          + "files are a view of its own, which a bundle does not carry). Land or discard the view first.");
    }
    isolated.forEach(tab -> notes.add("Tab " + tab + " is isolated (its files are a view of its own, which a bundle does not "
        + "carry): it is not in the bundle; land or discard it, then export again to share it."));
    List<SessionFile.Tab> kept = session.tabs().stream().filter(tab -> !isolated.contains(tab.tabId()))
        .map(tab -> isolated.contains(tab.subagentOf()) ? tab.withSubagentOf(Optional.empty()) : tab).toList();
    return new SessionFile(session.schemaVersion(), session.id(), session.name(), session.project(), session.created(),
        session.updated(), isolated.contains(session.activeTab()) ? null : session.activeTab(), kept, session.formerNames());
  }

  /**
   * Opens the session in {@code file} in this project: refused when the session or one of its tabs
   * is here already, or when the project's files are not the bundle's base (the refusal names them
   * and says how to get there).
   */
  public static Imported importFrom(ShadowStore store, SessionStore files, Path file) {
    Map<String, byte[]> carried;
    try {
      carried = TabBundles.files(store, file);
    } catch (CheckpointException e) {
      throw new SessionException(ErrorKind.valueOf(e.kind().name()), e.getMessage(), e);
    }
    if (!carried.containsKey(SESSION) || !carried.containsKey(BASE)) {
      throw new SessionException(ErrorKind.REFUSED, file + " is a Waymark bundle without a session: it was not written by `waymark sessions "
          + "export`.");
    }
    SessionFile session = parse(store, files, carried.get(SESSION), file);
    ProjectBase base;
    try {
      base = JSON.readValue(carried.get(BASE), ProjectBase.class);
    } catch (IOException e) {
      throw new SessionException(ErrorKind.LOST, "The base in " + file + " cannot be read: " + firstLine(e.getMessage()), e);
    }
    if (Files.isRegularFile(files.file(session.id()))) {
      throw new SessionException(ErrorKind.REFUSED, "Session " + session.id() + " is in this project already (imported before, or this is "
          + "where it was made): `waymark --resume " + session.id() + "` opens it; to import it again, `waymark sessions "
          + "delete " + session.id() + "` first.");
    }
    List<String> tabs = session.tabs().stream().map(SessionFile.Tab::tabId).toList();
    Set<String> clash = new TreeSet<>(tabs);
    clash.retainAll(store.tabIds());
    if (!clash.isEmpty()) {
      throw new SessionException(ErrorKind.REFUSED, "Tab " + String.join(", ", clash) + " of session " + session.id() + " already has "
          + "checkpoints in this project (another session holds it); nothing was imported.");
    }
    UntrustedSession.check(file, store.projectDirectory(), store.tabIds(), session, base);
    refuseOtherFiles(store.projectDirectory(), base);
    List<String> notes = new ArrayList<>();
    ProjectBase.head(store.projectDirectory()).ifPresent(head -> {
      if (base.head() != null && !base.head().equals(head[0])) {
        notes.add("This clone is on " + head[0].substring(0, 12) + ", the session was exported on " + base.head()
            .substring(0, 12) + ": the files its checkpoints touched are the same, other files may differ.");
      }
    });
    int tags;
    try {
      tags = TabBundles.fetch(store, file, tabs);
    } catch (CheckpointException e) {
      throw new SessionException(ErrorKind.valueOf(e.kind().name()), e.getMessage(), e);
    }
    SessionFile here = new SessionFile(session.schemaVersion(), session.id(), session.name(),
        store.projectDirectory().toString(), session.created(), session.updated(), session.activeTab(), session.tabs(),
        session.formerNames());
    files.save(here);
    return new Imported(here, tags, notes);
  }

  /** The session file the bundle carries, read as a session file on disk is (its schema checked). */
  private static SessionFile parse(ShadowStore store, SessionStore files, byte[] bytes, Path bundle) {
    Path temp = null;
    try {
      Path dir = Files.createDirectories(store.scratchDirectory("import"));
      temp = Files.createTempFile(dir, "session-", ".json");
      Files.write(temp, bytes);
      return files.read(temp);
    } catch (SessionException e) {
      // what is wrong with it, not with the scratch file it was read from
      String why = firstLine(innermost(e).getMessage().replace(String.valueOf(temp), "its session"));
      throw e.kind() == ErrorKind.UNSUPPORTED ? e
          : new SessionException(e.kind(), bundle + " holds a session that cannot be imported: " + why + ". Nothing was imported.", e);
    } catch (IOException e) {
      throw new SessionException(ErrorKind.LOST, "Could not read the session in the bundle: " + e.getMessage(), e);
    } finally {
      if (temp != null) {
        try {
          Files.deleteIfExists(temp);
        } catch (IOException ignored) {
          // a scratch file
        }
      }
    }
  }

  /** The deepest session error in {@code e}'s causes: the one that names what is wrong. */
  private static SessionException innermost(SessionException e) {
    SessionException deepest = e;
    for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof SessionException inner) {
        deepest = inner;
      }
    }
    return deepest;
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }

  private static void refuseOtherFiles(Path project, ProjectBase base) {
    List<ProjectBase.Difference> differ;
    try {
      differ = base.differences(project);
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not compare the project's files with the bundle's base: " + e.getMessage(), e);
    }
    if (differ.isEmpty()) {
      return;
    }
    StringBuilder why = new StringBuilder("This project's files are not those the session was exported with: ")
        .append(differ.size()).append(" of the ").append(Counted.of(base.files().size(), "file"))
        .append(" its checkpoints touched ").append(differ.size() == 1 ? "differs" : "differ").append(", so its restores would not fit. Nothing was imported.\n");
    differ.stream().limit(NAMED).forEach(d -> why.append("  ").append(d.describe()).append('\n'));
    if (differ.size() > NAMED) {
      why.append("  and ").append(differ.size() - NAMED).append(" more\n");
    }
    Optional<String[]> head = ProjectBase.head(project);
    String exported = base.head() == null ? "" : "It was exported on commit " + base.head().substring(0, 12)
        + (base.branch() == null ? "" : " (" + base.branch() + ")");
    if (base.head() != null && head.isPresent() && !head.get()[0].equals(base.head())) {
      why.append(exported).append(", and this clone is on ").append(head.get()[0], 0, 12).append(": check that commit out (`git ")
          .append("checkout ").append(base.head(), 0, 12).append("`, after a `git fetch` if this clone lacks it), make these ")
          .append("files as they were there, and import again.");
    } else if (base.head() != null) {
      why.append(exported).append(", the one this clone is on: the files differ by uncommitted changes; make them as ")
          .append("they were there (`git stash` keeps yours aside), and import again.");
    } else {
      why.append("Make these files as they were in ").append(base.project()).append(" (copy them over), and import again.");
    }
    throw new SessionException(ErrorKind.CLASH, why.toString());
  }
}
