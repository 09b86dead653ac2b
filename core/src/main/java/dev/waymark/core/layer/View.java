package dev.waymark.core.layer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * An isolated tab's copy-on-write view of the project: an upper directory of its own (beside the
 * project's layers, on its file system) over the live project, kept until the tab lands or
 * discards it. It is the same upper directory an overlay mount makes, read and written the same
 * way: a changed file is there whole, a deleted one is a whiteout (the character device 0:0), a
 * directory made again over one the project has is opaque. So the tab's file tools
 * ({@link #locate}, {@link #list}, {@link #write}, {@link #delete}) and its commands (the overlay
 * mounted with this upper, {@link LayerSupport#enter(View, List)}) see one view. A path the view
 * has not changed is the project's as it is now: the user's and other tabs' edits come through.
 *
 * <p>Opening one costs O(1): two directories and a journal, no copy. Before the view first
 * changes a path, what the project holds there is kept ({@link ViewBases}): a land merges from it.
 * On disk: {@code upper/}, {@code work/}, {@code bases/} and {@code view.json} (the project, the tab,
 * when it was opened); it survives a kill as it is.
 */
public final class View {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String JOURNAL = "view.json";
  private static final String OPAQUE = "overlay.opaque";
  private static final String COMMAND_STARTED = "command.started";

  private final Path dir;
  private final Path project;
  private final String tab;
  private final long since;

  private View(Path dir, Path project, String tab, long since) {
    this.dir = dir;
    this.project = project;
    this.tab = tab;
    this.since = since;
  }

  /** The view of {@code tab} under {@code viewsRoot}: the one kept there, else a new, empty one. */
  public static View open(Path viewsRoot, Path project, String tab) throws IOException {
    Path dir = viewsRoot.resolve(tab);
    Optional<View> kept = read(dir);
    if (kept.isPresent()) {
      kept.get().ensureDirectories();
      return kept.get();
    }
    LayerFiles.privateDirectories(viewsRoot);
    Files.createDirectories(dir);
    ObjectNode journal = JSON.createObjectNode().put("project", project.toString()).put("tab", tab)
        .put("since", System.currentTimeMillis());
    Path temp = dir.resolve(JOURNAL + ".tmp");
    Files.write(temp, JSON.writeValueAsBytes(journal));
    Files.move(temp, dir.resolve(JOURNAL), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    View view = read(dir).orElseThrow();
    view.ensureDirectories();
    return view;
  }

  /** The view kept in {@code dir}, if there is one. */
  public static Optional<View> read(Path dir) throws IOException {
    Path journal = dir.resolve(JOURNAL);
    if (!Files.isRegularFile(journal)) {
      return Optional.empty();
    }
    var node = JSON.readTree(Files.readString(journal, StandardCharsets.UTF_8));
    return Optional.of(new View(dir, Path.of(node.path("project").asText()), node.path("tab").asText(),
        node.path("since").asLong()));
  }

  private void ensureDirectories() throws IOException {
    // a land moves the upper directory away and makes a new one: a kill between leaves none
    Files.createDirectories(upper());
    Files.createDirectories(work());
    if (empty() && Files.isDirectory(bases().directory())) {
      Layer.deleteTree(bases().directory()); // a base matters only while the view changes its path
    }
  }

  /**
   * Hands what the view holds to a new layer of {@code layers}, journalled as {@code owner}'s, for
   * the layer's apply to land it (a three-way merge from the view's bases where the project changed
   * since); the view is left empty. The steps keep one of two states whatever kill comes: the
   * layer's upper directory is the view's, moved by one rename, or the view still holds it all (a
   * layer found with nothing in it applies nothing).
   */
  public Layer land(LayerJournal layers, String owner) throws IOException {
    Layer layer = Layer.create(layers.root(), project, owner, "", since);
    Path bases = layer.directory().resolve(Layer.BASES);
    Files.createDirectory(bases);
    if (Files.isDirectory(bases().directory())) {
      try (Stream<Path> kept = Files.list(bases().directory())) {
        for (Path base : kept.toList()) {
          Files.createLink(bases.resolve(base.getFileName()), base); // linked, not moved: the view keeps its own until the rename
        }
      }
    }
    Files.move(upper(), layer.upper(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    Files.createDirectory(upper());
    Layer.deleteTree(bases().directory());
    Layer.deleteTree(work());
    Files.createDirectory(work());
    return layer;
  }

  /**
   * Drops what the view holds: its upper directory and bases move to {@code discarded} (by one
   * rename), where the caller keeps them until retention; the view is left empty. Returns where.
   */
  public Path discard(Path discarded) throws IOException {
    LayerFiles.privateDirectories(discarded);
    Path kept = Files.createTempDirectory(discarded, tab + "-");
    Files.move(upper(), kept.resolve("upper"), StandardCopyOption.ATOMIC_MOVE);
    if (Files.isDirectory(bases().directory())) {
      Files.move(bases().directory(), kept.resolve("bases"), StandardCopyOption.ATOMIC_MOVE);
    }
    Files.createDirectory(upper());
    return kept;
  }

  /** Deletes what {@link #discard} moved aside, once the caller kept it elsewhere. */
  public static void deleteMoved(Path moved) throws IOException {
    Layer.deleteTree(moved);
  }

  /** Removes the view altogether (its tab is deleted, or goes on as a normal tab); what it held is gone. */
  public void delete() throws IOException {
    Files.deleteIfExists(dir.resolve(JOURNAL));
    Layer.deleteTree(dir);
  }

  public Path directory() {
    return dir;
  }

  public Path project() {
    return project;
  }

  public String tab() {
    return tab;
  }

  /** When the view was opened (milliseconds since the epoch). */
  public long since() {
    return since;
  }

  public Path upper() {
    return dir.resolve("upper");
  }

  public Path work() {
    return dir.resolve("work");
  }

  public ViewBases bases() {
    return new ViewBases(dir.resolve("bases"));
  }

  /**
   * Where the view's entry at {@code path} (project-relative, {@code /}-separated; {@code ""} is the
   * root) is read from: the upper directory if it holds it, else the project, unless a whiteout or
   * an opaque directory of the view hides it there. Empty when the view has nothing there.
   */
  public Optional<Path> locate(String path) throws IOException {
    if (path.isEmpty()) {
      return Optional.of(project);
    }
    String[] segments = path.split("/");
    Path up = upper();
    boolean lowerHidden = false;
    for (int i = 0; i < segments.length; i++) {
      up = up.resolve(segments[i]);
      BasicFileAttributes attributes = LayerFiles.attributesOrNull(up);
      boolean last = i == segments.length - 1;
      if (attributes == null) {
        continue; // not in the upper directory from here: as the project has it, unless hidden
      }
      if (UpperReader.whiteout(up, attributes)) {
        return Optional.empty();
      }
      if (last) {
        return Optional.of(up);
      }
      if (!attributes.isDirectory()) {
        return Optional.empty(); // a file of the view where a directory would be
      }
      lowerHidden = lowerHidden || UpperReader.opaque(up);
      if (lowerHidden) {
        // below an opaque directory only the upper counts: the rest of the way must be there
        Path rest = up.resolve(String.join("/", Arrays.copyOfRange(segments, i + 1, segments.length)));
        return locateBelowOpaque(rest);
      }
    }
    if (ViewBases.hiddenBelowLink(project, path)) {
      return Optional.empty();
    }
    Path low = project.resolve(path);
    return LayerFiles.attributesOrNull(low) == null ? Optional.empty() : Optional.of(low);
  }

  private static Optional<Path> locateBelowOpaque(Path rest) throws IOException {
    BasicFileAttributes attributes = LayerFiles.attributesOrNull(rest);
    return attributes == null || UpperReader.whiteout(rest, attributes) ? Optional.empty() : Optional.of(rest);
  }

  /** The names in the view's directory {@code path}, sorted; empty when it is not a directory of the view. */
  public List<String> list(String path) throws IOException {
    Optional<Path> at = locate(path);
    if (at.isEmpty() || !Files.isDirectory(at.get(), LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    Set<String> names = new TreeSet<>();
    Path up = path.isEmpty() ? upper() : upper().resolve(path);
    boolean fromUpper = at.get().startsWith(upper());
    boolean lowerVisible = !fromUpper || !opaqueOnTheWay(path);
    if (lowerVisible) {
      Path low = path.isEmpty() ? project : project.resolve(path);
      if (Files.isDirectory(low, LinkOption.NOFOLLOW_LINKS) && !ViewBases.hiddenBelowLink(project, path.isEmpty() ? "x" : path + "/x")) {
        names.addAll(names(low));
      }
    }
    if (Files.isDirectory(up, LinkOption.NOFOLLOW_LINKS)) {
      for (String name : names(up)) {
        Path entry = up.resolve(name);
        BasicFileAttributes attributes = LayerFiles.attributesOrNull(entry);
        if (attributes != null && UpperReader.whiteout(entry, attributes)) {
          names.remove(name);
        } else {
          names.add(name);
        }
      }
    }
    return List.copyOf(names);
  }

  /** Whether the upper directory at {@code path}, or one above it, is opaque. */
  private boolean opaqueOnTheWay(String path) throws IOException {
    Path up = upper();
    for (String segment : path.isEmpty() ? new String[0] : path.split("/")) {
      up = up.resolve(segment);
      if (Files.isDirectory(up, LinkOption.NOFOLLOW_LINKS) && UpperReader.opaque(up)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Makes {@code path} in the view a regular file holding {@code content} with permission bits
   * {@code mode}, written whole (beside it, then renamed): the project is not touched.
   */
  public void write(String path, byte[] content, int mode) throws IOException {
    bases().note(project, path);
    Path target = directoriesFor(path);
    Path temp = target.resolveSibling(target.getFileName() + ".waymark-view.tmp");
    Files.write(temp, content);
    Files.setAttribute(temp, "unix:mode", mode & 07777);
    Optional<Path> there = Optional.ofNullable(LayerFiles.attributesOrNull(target)).map(a -> target);
    if (there.isPresent() && Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
      Files.delete(temp);
      throw new IOException(path + " is a directory in the view");
    }
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** Makes {@code path} in the view a symbolic link to {@code target}. */
  public void link(String path, String linkTarget) throws IOException {
    bases().note(project, path);
    Path target = directoriesFor(path);
    Path temp = target.resolveSibling(target.getFileName() + ".waymark-view.tmp");
    Files.deleteIfExists(temp);
    Files.createSymbolicLink(temp, Path.of(linkTarget));
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Readies {@code path} to be written in the view by the caller (a write, then a rename over it):
   * its base kept, its parents made in the upper directory as the view has them; returns where.
   */
  public Path prepareWrite(String path) throws IOException {
    bases().note(project, path);
    return directoriesFor(path);
  }

  /**
   * Takes the file or link at {@code path} out of the view: gone from the upper directory, and a
   * whiteout where the project has something there. A directory is refused.
   */
  public void delete(String path) throws IOException {
    Optional<Path> at = locate(path);
    if (at.isEmpty()) {
      return;
    }
    if (Files.isDirectory(at.get(), LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(path + " is a directory in the view; only files and links are deleted");
    }
    bases().note(project, path);
    Path target = directoriesFor(path);
    Files.deleteIfExists(target);
    if (!opaqueOnTheWay(parentOf(path)) && !ViewBases.hiddenBelowLink(project, path)
        && LayerFiles.attributesOrNull(project.resolve(path)) != null) {
      whiteout(target);
    }
  }

  /**
   * The upper directory's path for {@code path}, its parents made there as the view has them: a
   * directory the project has is made with its mode (overlayfs's copy-up); one over a whiteout of
   * the view is opaque (what the project holds there stays hidden).
   */
  private Path directoriesFor(String path) throws IOException {
    String[] segments = path.split("/");
    Path up = upper();
    String sofar = "";
    for (int i = 0; i < segments.length - 1; i++) {
      sofar = sofar.isEmpty() ? segments[i] : sofar + "/" + segments[i];
      up = up.resolve(segments[i]);
      BasicFileAttributes attributes = LayerFiles.attributesOrNull(up);
      if (attributes != null && attributes.isDirectory()) {
        continue;
      }
      Optional<Path> inView = locate(sofar);
      if (inView.isPresent() && !Files.isDirectory(inView.get(), LinkOption.NOFOLLOW_LINKS)) {
        throw new IOException(sofar + " is a file in the view where a directory is needed");
      }
      boolean overWhiteout = attributes != null; // a whiteout (a file of the view would have been refused above)
      if (overWhiteout) {
        Files.delete(up);
      }
      Files.createDirectory(up);
      Path low = project.resolve(sofar);
      if (inView.isPresent() && Files.isDirectory(low, LinkOption.NOFOLLOW_LINKS)) {
        Files.setAttribute(up, "unix:mode", UpperReader.mode(low));
      } else if (overWhiteout || LayerFiles.attributesOrNull(low) != null) {
        opaque(up); // the project's entry there stays hidden
      }
    }
    return up.resolve(segments[segments.length - 1]);
  }

  private static String parentOf(String path) {
    int slash = path.lastIndexOf('/');
    return slash < 0 ? "" : path.substring(0, slash);
  }

  private static void opaque(Path dir) throws IOException {
    UserDefinedFileAttributeView view = Files.getFileAttributeView(dir, UserDefinedFileAttributeView.class,
        LinkOption.NOFOLLOW_LINKS);
    view.write(OPAQUE, ByteBuffer.wrap("y".getBytes(StandardCharsets.US_ASCII)));
  }

  /** Makes a whiteout, the character device 0:0, which a user without privileges may make (Linux 5.8 and later). */
  private static void whiteout(Path at) throws IOException {
    Process mknod = new ProcessBuilder("mknod", at.toString(), "c", "0", "0").redirectErrorStream(true).start();
    String output;
    try (var in = mknod.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
    }
    try {
      if (mknod.waitFor() != 0) {
        throw new IOException("could not mark " + at.getFileName() + " deleted in the view: " + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while marking " + at.getFileName() + " deleted in the view", e);
    }
  }

  /**
   * Before a command runs in the view: marks the moment on the file system's own clock (the change
   * time of a file written now), which {@link #afterCommand} compares the project's files with.
   */
  public FileTime commandStarts() throws IOException {
    Path mark = dir.resolve(COMMAND_STARTED);
    Path temp = dir.resolve(COMMAND_STARTED + ".tmp");
    Files.write(temp, new byte[0]);
    Files.move(temp, mark, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    return (FileTime) Files.getAttribute(mark, "unix:ctime", LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * After a command that started at {@code started} ({@link #commandStarts}) ran in the view: the
   * empty directories its sandbox made to mount over ({@code mountPoints}, project-relative) are not
   * the command's and go; each path it changed for the first time gets its base, what the project
   * held as the command started. That is what the project holds now unless someone changed it while
   * the command ran; then it is not known, and a land keeps theirs unless both sides agree.
   */
  public void afterCommand(Set<String> mountPoints, FileTime started) throws IOException {
    for (String point : mountPoints) {
      Path made = upper().resolve(point);
      if (Files.isDirectory(made, LinkOption.NOFOLLOW_LINKS) && names(made).isEmpty()
          && LayerFiles.attributesOrNull(project.resolve(point)) == null) {
        Files.delete(made);
      }
    }
    ViewBases bases = bases();
    for (LayerChange change : changes().changes()) {
      if (change.kind() == LayerChange.Kind.DIRECTORY || bases.noted(change.path())) {
        continue;
      }
      if (ViewBases.changedSince(project, change.path(), started)) {
        bases.noteUnknown(change.path());
      } else {
        bases.note(project, change.path());
      }
    }
  }



  /**
   * Puts {@code path} back in the view as it was before a land took it: its base first ({@code base}
   * its bytes, null absent; {@code baseKnown} false: not known), then the view's entry
   * ({@code content} null: deleted in the view; {@code link}: a link to {@code content}'s text).
   */
  public void putBack(String path, boolean baseKnown, byte[] base, byte[] content, int mode, boolean link)
      throws IOException {
    if (baseKnown) {
      bases().put(path, base);
    } else {
      bases().noteUnknown(path);
    }
    if (content == null) {
      delete(path);
    } else if (link) {
      link(path, new String(content, StandardCharsets.UTF_8));
    } else {
      write(path, content, mode);
    }
  }

  /** What the view changes in the project now, as a land would apply it. */
  public LayerChanges changes() throws IOException {
    return UpperReader.read(upper(), project, Set.of());
  }

  /** How many files, links and deletions the view holds that the project does not (directories not counted). */
  public int differing() throws IOException {
    int count = 0;
    for (LayerChange change : changes().changes()) {
      if (change.kind() != LayerChange.Kind.DIRECTORY && !sameAsProject(change)) {
        count++;
      }
    }
    return count;
  }

  private boolean sameAsProject(LayerChange change) throws IOException {
    if (change.kind() != LayerChange.Kind.FILE) {
      return false;
    }
    Path low = project.resolve(change.path());
    return Files.isRegularFile(low, LinkOption.NOFOLLOW_LINKS) && LayerFiles.sameVersion(low, change.source());
  }

  /** Whether the view changes nothing. */
  public boolean empty() throws IOException {
    try (Stream<Path> entries = Files.list(upper())) {
      return entries.findAny().isEmpty();
    } catch (NoSuchFileException gone) {
      return true;
    }
  }

  static List<String> names(Path dir) throws IOException {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Override
  public String toString() {
    return "view of tab " + tab;
  }
}
