package dev.waymark.core.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.ProjectPaths;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code waymark.json} of a checkpoint's or a save's commit, format {@value #FORMAT}: the tab,
 * the checkpoint's number, parent, path from {@code #0}, status and creation time, then either the
 * checkpoint's changes ({@code changes}: path, before, after) or, for a save, its name and every
 * file the tab tracks at that checkpoint ({@code save}, {@code files}).
 *
 * <p>Read strictly, as the restore journal is: another format, a missing field or one of the
 * wrong type is a {@link CheckpointException} naming the ref and the field. The one leniency, kept
 * from before: permission bits that do not fit their file's kind count as none recorded.
 *
 * @param parent the parent's number, {@code -1} for {@code #0}
 * @param changes the checkpoint's changes; empty for a save
 * @param save the save's name; empty for a checkpoint
 * @param files a save's files, by path; empty for a checkpoint
 * @param children the tabs its turn's subagents worked in ({@code children}: tab, first, last,
 *     isolated), left out when none
 * @param land for a land's checkpoint, the tab's view it came from ({@code land}: whether it kept
 *     the tab isolated, and each path's version in the view and its base, none where not known)
 */
record CheckpointManifest(String tab, int checkpoint, int parent, List<Integer> path, CheckpointStatus status,
    Instant created, List<FileChange> changes, Optional<String> save, Map<String, FileVersion> files,
    List<ChildLink> children, Optional<LandRecord> land) {
  static final int FORMAT = 1;
  private static final Logger LOG = LoggerFactory.getLogger(CheckpointManifest.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern BLOB = Pattern.compile("[0-9a-f]{40}");

  CheckpointManifest {
    path = List.copyOf(path);
    changes = List.copyOf(changes);
    files = Collections.unmodifiableMap(new TreeMap<>(files));
    children = List.copyOf(children);
  }

  static CheckpointManifest ofCheckpoint(String tab, int checkpoint, int parent, List<Integer> path,
      CheckpointStatus status, Instant created, List<FileChange> changes, List<ChildLink> children,
      Optional<LandRecord> land) {
    return new CheckpointManifest(tab, checkpoint, parent, path, status, created, changes, Optional.empty(), Map.of(),
        children, land);
  }

  static CheckpointManifest ofSave(String tab, int checkpoint, int parent, List<Integer> path, CheckpointStatus status,
      Instant created, String name, Map<String, FileVersion> files) {
    return new CheckpointManifest(tab, checkpoint, parent, path, status, created, List.of(), Optional.of(name), files,
        List.of(), Optional.empty());
  }

  // ---------------------------------------------------------------------------------- writing

  byte[] toBytes() {
    ObjectNode json = JSON.createObjectNode();
    json.put("format", FORMAT);
    json.put("tab", tab);
    json.put("checkpoint", checkpoint);
    json.put("parent", parent);
    ArrayNode ancestry = json.putArray("path");
    path.forEach(ancestry::add);
    json.put("status", status.name().toLowerCase(Locale.ROOT));
    json.put("created", created.toString());
    if (save.isPresent()) {
      json.put("save", save.get());
      ArrayNode listed = json.putArray("files");
      for (var entry : files.entrySet()) {
        ObjectNode f = listed.addObject();
        f.put("path", entry.getKey());
        putVersion(f, entry.getValue());
      }
    } else {
      ArrayNode listed = json.putArray("changes");
      for (FileChange change : changes) {
        ObjectNode c = listed.addObject();
        c.put("path", change.path());
        putVersion(c.putObject("before"), change.before());
        putVersion(c.putObject("after"), change.after());
      }
      if (!children.isEmpty()) {
        ArrayNode linked = json.putArray("children");
        for (ChildLink child : children) {
          linked.addObject().put("tab", child.tab()).put("first", child.first()).put("last", child.last())
              .put("isolated", child.isolated());
        }
      }
      land.ifPresent(record -> {
        ObjectNode l = json.putObject("land");
        l.put("keptIsolated", record.keptIsolated());
        ArrayNode view = l.putArray("view");
        for (LandRecord.ViewEntry entry : record.view()) {
          ObjectNode e = view.addObject();
          e.put("path", entry.path());
          putVersion(e.putObject("inView"), entry.inView());
          entry.base().ifPresent(base -> putVersion(e.putObject("base"), base));
        }
      });
    }
    return bytes(json);
  }

  private static void putVersion(ObjectNode json, FileVersion version) {
    json.put("kind", version.kind().name().toLowerCase(Locale.ROOT));
    if (version.exists()) {
      json.put("blob", version.blob().name());
    }
    if (version.hasMode()) {
      json.put("mode", FileModes.octal(version.mode())); // git's tree keeps only 100644 or 100755
    }
  }

  /** Pretty-printed JSON with a final newline, as every manifest of the shadow repository is written. */
  static byte[] bytes(ObjectNode json) {
    try {
      return (JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------------------------- reading

  /** The manifest in {@code bytes}, found at {@code ref}; anything but format {@value #FORMAT}, whole, is refused. */
  static CheckpointManifest parse(byte[] bytes, String ref) {
    JsonNode m;
    try {
      m = JSON.readTree(bytes);
    } catch (IOException e) {
      throw damaged(ref, "it is not JSON (" + e.getMessage().lines().findFirst().orElse("") + ")");
    }
    if (m == null || !m.isObject()) {
      throw damaged(ref, "it is not a JSON object");
    }
    JsonNode format = m.get("format");
    if (format == null || !format.isInt()) {
      throw damaged(ref, "it has no format number");
    }
    if (format.asInt() != FORMAT) {
      throw new CheckpointException(CheckpointException.Kind.UNSUPPORTED, "The manifest of " + ref + " has format " + format.asInt() + ", which this version"
          + " of Waymark does not know (it reads format " + FORMAT + "); a newer Waymark wrote it.");
    }
    String tab = text(m, "tab", ref);
    int checkpoint = integer(m, "checkpoint", ref, 0);
    int parent = integer(m, "parent", ref, -1);
    List<Integer> path = new ArrayList<>();
    for (JsonNode n : array(m, "path", ref)) {
      if (!n.isInt() || n.asInt() < 0) {
        throw damaged(ref, "\"path\" holds " + n + ", not a checkpoint number");
      }
      path.add(n.asInt());
    }
    CheckpointStatus status = status(text(m, "status", ref), ref);
    Instant created;
    try {
      created = Instant.parse(text(m, "created", ref));
    } catch (DateTimeParseException e) {
      throw damaged(ref, "\"created\" is not a time (" + m.get("created").asText() + ")");
    }
    if (m.has("save")) {
      Map<String, FileVersion> files = new TreeMap<>();
      for (JsonNode f : array(m, "files", ref)) {
        files.put(path(f, ref), version(f, ref));
      }
      return ofSave(tab, checkpoint, parent, path, status, created, text(m, "save", ref), files);
    }
    List<FileChange> changes = new ArrayList<>();
    for (JsonNode c : array(m, "changes", ref)) {
      changes.add(new FileChange(path(c, ref), version(object(c, "before", ref), ref),
          version(object(c, "after", ref), ref)));
    }
    List<ChildLink> children = new ArrayList<>();
    if (m.has("children")) { // manifests from before links were kept have none
      for (JsonNode c : array(m, "children", ref)) {
        JsonNode isolated = c.get("isolated");
        try {
          children.add(new ChildLink(text(c, "tab", ref), integer(c, "first", ref, 1), integer(c, "last", ref, 1),
              isolated != null && isolated.asBoolean(false)));
        } catch (IllegalArgumentException e) {
          throw damaged(ref, "\"children\" holds " + c + ", not a child tab's link");
        }
      }
    }
    Optional<LandRecord> land = Optional.empty();
    if (m.has("land")) {
      JsonNode l = object(m, "land", ref);
      List<LandRecord.ViewEntry> view = new ArrayList<>();
      for (JsonNode e : array(l, "view", ref)) {
        view.add(new LandRecord.ViewEntry(path(e, ref), version(object(e, "inView", ref), ref),
            e.has("base") ? Optional.of(version(object(e, "base", ref), ref)) : Optional.empty()));
      }
      land = Optional.of(new LandRecord(l.path("keptIsolated").asBoolean(false), view));
    }
    return ofCheckpoint(tab, checkpoint, parent, path, status, created, changes, children, land);
  }

  /** A path, checked as untrusted input: the commit may have come in a bundle someone else wrote. */
  private static String path(JsonNode json, String ref) {
    try {
      return ProjectPaths.check(text(json, "path", ref));
    } catch (CheckpointException e) {
      if (e.kind() != CheckpointException.Kind.REFUSED) {
        throw e;
      }
      throw damaged(ref, e.getMessage());
    }
  }

  private static FileVersion version(JsonNode v, String ref) {
    String kindName = text(v, "kind", ref);
    FileKind kind;
    try {
      kind = FileKind.valueOf(kindName.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw damaged(ref, "a file's kind is \"" + kindName + "\"");
    }
    if (kind == FileKind.ABSENT) {
      return FileVersion.ABSENT;
    }
    String blob = text(v, "blob", ref);
    if (!BLOB.matcher(blob).matches()) {
      throw damaged(ref, "\"" + blob + "\" is not a blob id");
    }
    return new FileVersion(kind, ObjectId.fromString(blob), mode(kind, v, ref));
  }

  /** The recorded mode; one that does not fit the kind counts as none recorded (the file is then written as git's two modes allow). */
  private static int mode(FileKind kind, JsonNode v, String ref) {
    JsonNode node = v.get("mode");
    if (node == null || node.isNull()) {
      return FileVersion.NO_MODE;
    }
    int mode;
    try {
      mode = FileModes.parse(node.isTextual() ? node.asText() : "?");
    } catch (IllegalArgumentException e) {
      throw damaged(ref, "\"mode\" is " + node + ", not permission bits in octal");
    }
    try {
      new FileVersion(kind, ObjectId.zeroId(), mode); // fits the kind
      return mode;
    } catch (IllegalArgumentException doesNotFit) {
      LOG.warn("the manifest of {} holds a mode that does not fit ({}); it is ignored", ref, v);
      return FileVersion.NO_MODE;
    }
  }

  private static CheckpointStatus status(String name, String ref) {
    for (CheckpointStatus status : CheckpointStatus.values()) {
      if (status.name().toLowerCase(Locale.ROOT).equals(name)) {
        return status;
      }
    }
    throw damaged(ref, "\"status\" is \"" + name + "\"");
  }

  private static String text(JsonNode json, String field, String ref) {
    JsonNode value = json.get(field);
    if (value == null || !value.isTextual()) {
      throw damaged(ref, value == null ? "\"" + field + "\" is missing" : "\"" + field + "\" is " + value + ", not text");
    }
    return value.asText();
  }

  private static int integer(JsonNode json, String field, String ref, int least) {
    JsonNode value = json.get(field);
    if (value == null || !value.isInt() || value.asInt() < least) {
      throw damaged(ref, value == null ? "\"" + field + "\" is missing" : "\"" + field + "\" is " + value);
    }
    return value.asInt();
  }

  private static JsonNode array(JsonNode json, String field, String ref) {
    JsonNode value = json.get(field);
    if (value == null || !value.isArray()) {
      throw damaged(ref, "\"" + field + "\" is " + (value == null ? "missing" : value + ", not a list"));
    }
    return value;
  }

  private static JsonNode object(JsonNode json, String field, String ref) {
    JsonNode value = json.get(field);
    if (value == null || !value.isObject()) {
      throw damaged(ref, "\"" + field + "\" is " + (value == null ? "missing" : value + ", not an object"));
    }
    return value;
  }

  private static CheckpointException damaged(String ref, String why) {
    return new CheckpointException(CheckpointException.Kind.LOST, "The manifest of " + ref + " (waymark.json) is damaged: " + why + ".");
  }
}
