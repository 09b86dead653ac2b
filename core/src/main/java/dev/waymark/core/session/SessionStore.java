package dev.waymark.core.session;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.context.TypedPrompt;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The saved sessions of one project: {@code projects/<id>/sessions/<sessionId>.json} beside the
 * shadow repository. Files are written whole to a temporary file and renamed, mode 0600, so a
 * crash leaves the old session or the new one, never half of one. A file that cannot be read is
 * reported and left as it is.
 */
public final class SessionStore {
  /** The session format this Waymark writes and reads. */
  public static final int SCHEMA_VERSION = 2;
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,80}");
  private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper()
      .registerModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
      .enable(SerializationFeature.INDENT_OUTPUT)
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final Path directory;
  private final Clock clock;
  /** What {@link #list} read of each file, kept while the file stays the same (inode, size, time). */
  private final Map<Path, Known> known = new ConcurrentHashMap<>();
  private final AtomicLong parsed = new AtomicLong();

  private record Known(Object key, long size, FileTime modified, Listing listing) {}

  public SessionStore(Path directory, Clock clock) {
    this.directory = directory;
    this.clock = clock;
  }

  /** The sessions of the project whose checkpoints {@code store} holds. */
  public static SessionStore of(ShadowStore store) {
    return new SessionStore(store.shadowDirectory().getParent().resolve("sessions"), Clock.systemUTC());
  }

  public Path directory() {
    return directory;
  }

  /** A new session id: when it started, and a few random characters. */
  public String newId() {
    byte[] random = new byte[3];
    new SecureRandom().nextBytes(random);
    return ID_TIME.format(clock.instant()) + "-" + HexFormat.of().formatHex(random);
  }

  public Instant now() {
    return clock.instant();
  }

  public Path file(String id) {
    if (!ID.matcher(id).matches()) {
      throw new SessionException(ErrorKind.REFUSED, "Not a session id: \"" + id + "\".");
    }
    return directory.resolve(id + ".json");
  }

  /**
   * What a session file was when it was last read or written here: its size, modification time
   * and a hash of its bytes. Another process that saved it since leaves a different stamp.
   */
  public record Stamp(long size, Instant modified, String sha256) {}

  /** The stamp of the session file with this id; empty when there is none. */
  public Optional<Stamp> stamp(String id) {
    Path file = file(id);
    try {
      var attributes = Files.readAttributes(file, BasicFileAttributes.class);
      byte[] bytes = Files.readAllBytes(file);
      return Optional.of(new Stamp(attributes.size(), attributes.lastModifiedTime().toInstant(), sha256(bytes)));
    } catch (NoSuchFileException gone) {
      return Optional.empty();
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not read " + file + ": " + e.getMessage(), e);
    }
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JVM has SHA-256
    }
  }

  /** {@code session} as {@link #save} writes it. */
  public static byte[] bytes(SessionFile session) {
    try {
      return JSON.writeValueAsBytes(session);
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not write session " + session.id() + ": " + e.getMessage(), e);
    }
  }

  /** Writes {@code session} atomically, replacing the one with its id. */
  public void save(SessionFile session) {
    saveStamped(session);
  }

  /** Writes {@code session} atomically, replacing the one with its id; returns the stamp of what it wrote. */
  public Stamp saveStamped(SessionFile session) {
    Path target = file(session.id());
    try {
      WaymarkHome.createPrivateDirectories(directory);
      Path temp = directory.resolve("." + session.id() + ".json.tmp");
      Files.deleteIfExists(temp);
      try {
        Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException notPosix) {
        Files.createFile(temp);
      }
      byte[] bytes = JSON.writeValueAsBytes(session);
      Files.write(temp, bytes);
      try (var channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
        channel.force(true);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      var attributes = Files.readAttributes(target, BasicFileAttributes.class);
      return new Stamp(attributes.size(), attributes.lastModifiedTime().toInstant(), sha256(bytes));
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not save session " + session.id() + " to " + target + ": " + e.getMessage(), e);
    }
  }

  /** The session with this id or name (the newest of that name), else the newest that had that name before a rename. */
  public SessionFile load(String idOrName) {
    if (ID.matcher(idOrName).matches() && Files.isRegularFile(directory.resolve(idOrName + ".json"))) {
      return read(directory.resolve(idOrName + ".json"));
    }
    for (Listing listing : list()) {
      if (idOrName.equals(listing.name()) || listing.id().startsWith(idOrName)) {
        if (listing.problem().isPresent()) {
          throw new SessionException(ErrorKind.STORE_IO, listing.problem().get());
        }
        return read(listing.file());
      }
    }
    for (Listing listing : list()) { // a name a session had before it was renamed still opens it
      if (listing.problem().isEmpty()) {
        SessionFile file = read(listing.file());
        if (file.formerNames().contains(idOrName)) {
          return file;
        }
      }
    }
    throw new SessionException(ErrorKind.NOT_FOUND, "No session \"" + idOrName + "\" in " + directory
        + ". `waymark sessions` lists them.");
  }

  /**
   * The most recently saved session, if any. A newest file that cannot be read is refused with
   * its name, never skipped for an older session: continuing that one would silently drop
   * whatever the damaged file held.
   */
  public Optional<SessionFile> latest() {
    List<Listing> all = list();
    if (all.isEmpty()) {
      return Optional.empty();
    }
    Listing newest = all.get(0);
    if (newest.problem().isPresent()) {
      throw new SessionException(ErrorKind.LOST, "The newest session file " + newest.file() + " cannot be loaded: "
          + newest.problem().get() + " Name another session (--session ID or --resume ID; `waymark sessions` "
          + "lists them), or move that file away.");
    }
    return Optional.of(read(newest.file()));
  }

  /**
   * One line of a session list; {@code problem} says why a file cannot be loaded. {@code title}
   * is what a user recognises it by: its name, else its first prompt (one line, cut), else empty;
   * {@code prompt} is that first prompt even when the session has a name, for searching.
   */
  public record Listing(String id, String name, Instant updated, int tabs, int checkpoints, Path file,
      Optional<String> problem, String title, String prompt) {
    public Listing(String id, String name, Instant updated, int tabs, int checkpoints, Path file,
        Optional<String> problem) {
      this(id, name, updated, tabs, checkpoints, file, problem, name == null ? "" : name);
    }

    public Listing(String id, String name, Instant updated, int tabs, int checkpoints, Path file,
        Optional<String> problem, String title) {
      this(id, name, updated, tabs, checkpoints, file, problem, title, name == null || name.isBlank() ? title : "");
    }
  }

  /** How long a title may be in a list: a prompt can be a page long. */
  static final int TITLE_CHARS = 60;

  /** The session's name, else the first prompt sent in it (in any tab), else the first one typed and not yet sent. */
  static String title(SessionFile s) {
    if (s.name() != null && !s.name().isBlank()) {
      return s.name();
    }
    return firstPrompt(s);
  }

  /** The first prompt sent in {@code s} (in any tab), else the first one typed and not yet sent; one line, cut. */
  static String firstPrompt(SessionFile s) {
    Optional<String> prompt = s.tabs().stream().flatMap(t -> t.checkpoints().stream())
        .filter(c -> c.number() > 0 && c.created() != null)
        .sorted(Comparator.comparing(SessionFile.Checkpoint::created))
        .flatMap(c -> c.messages().stream().filter(m -> "user".equals(m.role()) && m.text() != null).limit(1))
        .map(m -> TypedPrompt.shown(m.text())).filter(text -> !text.isBlank()).findFirst();
    if (prompt.isEmpty()) {
      prompt = s.tabs().stream().map(SessionFile.Tab::input).filter(text -> text != null && !text.isBlank()).findFirst();
    }
    return prompt.map(SessionStore::oneLine).orElse("");
  }

  private static String oneLine(String text) {
    String line = text.strip().replaceAll("\\s+", " ");
    return line.length() <= TITLE_CHARS ? line : line.substring(0, TITLE_CHARS - 1) + "…";
  }

  /** The checkpoints a session's prompts and commands made: every tab's but its {@code #0}, which is where it began. */
  public static int checkpointsMade(SessionFile session) {
    return session.tabs().stream().mapToInt(t -> Math.max(0, t.checkpoints().size() - 1)).sum();
  }

  /** Every session, newest first; unreadable files are listed with their problem. */
  public List<Listing> list() {
    List<Listing> all = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return all;
    }
    try (Stream<Path> files = Files.list(directory)) {
      List<Path> present = files.filter(f -> f.getFileName().toString().endsWith(".json")
          && !f.getFileName().toString().startsWith(".")).toList();
      known.keySet().retainAll(new HashSet<>(present));
      for (Path file : present) {
        all.add(listing(file));
      }
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not list the sessions in " + directory + ": " + e.getMessage(), e);
    }
    all.sort(Comparator.comparing(Listing::updated, Comparator.nullsFirst(Comparator.naturalOrder())).reversed());
    return all;
  }

  /** One file's line: read again only when the file changed since the last list (a save renames a new file in). */
  private Listing listing(Path file) {
    BasicFileAttributes now;
    try {
      now = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      now = null;
    }
    Known before = known.get(file);
    if (now != null && before != null && Objects.equals(before.key(), now.fileKey()) && before.size() == now.size()
        && before.modified().equals(now.lastModifiedTime())) {
      return before.listing();
    }
    String id = file.getFileName().toString().replaceFirst("\\.json$", "");
    Listing listing;
    try {
      parsed.incrementAndGet();
      SessionFile s = read(file);
      int checkpoints = checkpointsMade(s);
      listing = new Listing(s.id(), s.name(), s.updated(), s.tabs().size(), checkpoints, file, Optional.empty(), title(s),
          firstPrompt(s));
    } catch (SessionException e) {
      listing = new Listing(id, null, now == null ? Instant.EPOCH : now.lastModifiedTime().toInstant(), 0, 0, file,
          Optional.of(e.getMessage()));
    }
    if (now != null) {
      known.put(file, new Known(now.fileKey(), now.size(), now.lastModifiedTime(), listing));
    }
    return listing;
  }

  /** How many session files {@link #list} has read so far: what listing costs, for the tests that count it. */
  public long filesParsedForLists() {
    return parsed.get();
  }

  /**
   * Deletes a session: first the tags of its tabs (so garbage collection can reclaim what only
   * they kept), then its file. A tab another session names too (a session saved as a copy when
   * two processes changed it) keeps its tags.
   */
  public SessionFile delete(String idOrName, ShadowStore store) {
    SessionFile session = load(idOrName);
    Set<String> elsewhere = new HashSet<>();
    for (Listing other : list()) {
      if (!other.id().equals(session.id()) && other.problem().isEmpty()) {
        read(other.file()).tabs().forEach(t -> elsewhere.add(t.tabId()));
      }
    }
    List<String> only = new ArrayList<>();
    for (SessionFile.Tab tab : session.tabs()) {
      if (!elsewhere.contains(tab.tabId())) {
        only.add(tab.tabId());
      }
    }
    try {
      store.deleteTabs(only);
    } catch (CheckpointException inUse) {
      throw new SessionException(ErrorKind.BUSY, "Session " + session.id() + " was not deleted: " + inUse.getMessage()
          + " Nothing was deleted.", inUse);
    }
    try {
      Files.deleteIfExists(file(session.id()));
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not delete " + file(session.id()) + ": " + e.getMessage(), e);
    }
    return session;
  }

  /** Reads one file; a corrupt file or one from a newer Waymark is a clear error, and the file is left as it is. */
  public SessionFile read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not read " + file + ": " + e.getMessage(), e);
    }
    JsonNode tree;
    try {
      tree = JSON.readTree(bytes);
    } catch (JsonProcessingException e) {
      throw new SessionException(ErrorKind.LOST, file + where(e) + ": not a valid session file (" + e.getOriginalMessage() + "). It was left as it is.", e);
    } catch (IOException e) {
      throw new SessionException(ErrorKind.STORE_IO, "Could not read " + file + ": " + e.getMessage(), e);
    }
    if (tree == null || !tree.isObject()) {
      throw new SessionException(ErrorKind.LOST, file + ": not a session file (no JSON object). It was left as it is.");
    }
    int schema = tree.path("schemaVersion").asInt(-1);
    if (schema > SCHEMA_VERSION) {
      throw new SessionException(ErrorKind.UNSUPPORTED, file + " was written by a newer Waymark (session format " + schema
          + "; this one reads up to " + SCHEMA_VERSION + "). Update Waymark to open it; the file was left as it is.");
    }
    if (schema < 1) {
      throw new SessionException(ErrorKind.LOST, file + ": not a session file (no schemaVersion). It was left as it is.");
    }
    try {
      SessionFile session = JSON.treeToValue(tree, SessionFile.class);
      if (session.id() == null || session.tabs() == null) {
        throw new SessionException(ErrorKind.LOST, file + ": a session file without an id. It was left as it is.");
      }
      for (SessionFile.Tab tab : session.tabs()) {
        try {
          SessionCodec.snapshot(tab);
          SessionCodec.memory(tab);
          SessionCodec.history(tab);
        } catch (RuntimeException e) {
          throw new SessionException(ErrorKind.LOST, file + ": not a valid session file (" + e.getMessage() + "). It was left as it is.", e);
        }
      }
      return session;
    } catch (JsonProcessingException e) {
      throw new SessionException(ErrorKind.LOST, file + where(e) + ": not a valid session file (" + e.getOriginalMessage() + "). It was left as it is.", e);
    } catch (RuntimeException e) {
      if (e instanceof SessionException) {
        throw e;
      }
      throw new SessionException(ErrorKind.LOST, file + ": not a valid session file (" + e.getMessage() + "). It was left as it is.", e);
    }
  }

  private static String where(JsonProcessingException e) {
    JsonLocation at = e.getLocation();
    return at == null || at.getLineNr() < 0 ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr();
  }
}
