package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.lib.ProjectPaths;
import dev.waymark.core.checkpoint.lib.TempNames;
import dev.waymark.core.checkpoint.store.DirectoryModes;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.layer.View;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.ObjectId;

/**
 * The user's project directory as the checkpoint engine sees it: relative paths checked to stay
 * inside the root, reads that never follow a link, and writes that are atomic and keep the mode.
 */
public final class WorkTree {
  public static final String TEMP_SUFFIX = TempNames.RESTORE_SUFFIX;

  private final Path root;
  private volatile Consumer<Path> tempWrittenHook = temp -> {};
  /** Where files a restore removes or replaces wait for a restore that brings them back; null when the store could not make one. */
  private final SetAside aside;

  /** Directories' unusual modes, for the directories a restore must make again. */
  private final DirectoryModes directoryModes;

  /** An isolated tab's view, when the files are its: read through it, written into its upper directory. */
  private final View view;

  public WorkTree(Path root, SetAside aside, DirectoryModes directoryModes) {
    this.directoryModes = directoryModes;
    this.root = root;
    this.aside = aside;
    this.view = null;
  }

  /**
   * The files of an isolated tab's {@code view}: read as the view shows them, written and deleted
   * in it, never in the project. Nothing is set aside (a set-aside file would be moved out of the project).
   */
  public WorkTree(View view, DirectoryModes directoryModes) {
    this.directoryModes = directoryModes;
    this.root = view.project();
    this.aside = null;
    this.view = view;
  }

  /** The directory of the view this tree reads and writes, if it is an isolated tab's. */
  public Optional<Path> viewDirectory() {
    return Optional.ofNullable(view).map(View::directory);
  }

  /** This project's files as the view kept in {@code viewDir} shows them, if one is kept there. */
  public Optional<WorkTree> forView(Path viewDir) {
    try {
      return View.read(viewDir).map(v -> new WorkTree(v, directoryModes));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "The view in " + viewDir + " cannot be read: " + e.getMessage(), e);
    }
  }

  Path root() {
    return root;
  }

  /** Deletes what restores set aside (the store is closing). */
  public void close() {
    if (aside != null) {
      aside.close();
    }
  }

  /** Starts a restore's writes; what it removes outlives what earlier restores removed ({@link #writesDone}). */
  public long beginWrites() {
    return aside == null ? 0 : aside.begin();
  }

  /** After a restore's writes: what earlier restores removed, and this one did not bring back, is deleted. */
  public void writesDone(long generation) {
    if (aside != null) {
      aside.dropBefore(generation);
    }
  }

  /** Checks a project-relative path with {@code /} separators and returns it normalised (see {@link ProjectPaths#check}). */
  public static String checkPath(String path) {
    return ProjectPaths.check(path);
  }

  /** Where {@code path} is read from: in the project, or as the view shows it (a path where nothing is, when it has none). */
  public Path resolve(String path) {
    if (view == null) {
      return root.resolve(path);
    }
    try {
      return view.locate(path).orElse(view.directory().resolve("nothing").resolve(path));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where {@code path} is written: in the project, or in the view's upper directory, its parents made as the view has them. */
  private Path forWrite(String path) throws IOException {
    return view == null ? root.resolve(path) : view.prepareWrite(path);
  }

  /** The state of one path on disk right now; {@code mode} as {@link FileVersion#mode()}. */
  public record DiskFile(FileKind kind, boolean blocked, ObjectId id, long size, int mode) {
    public static final DiskFile ABSENT = new DiskFile(FileKind.ABSENT, false, null, 0, FileVersion.NO_MODE);

    /** Holds {@code version}: its kind and bytes, and its mode where both sides know one. */
    public boolean matches(FileVersion version) {
      return sameContent(version) && (!version.hasMode() || mode == FileVersion.NO_MODE || mode == version.mode());
    }

    /** Holds {@code version}'s kind and bytes, whatever its mode. */
    public boolean sameContent(FileVersion version) {
      return !blocked && kind == version.kind() && Objects.equals(id, version.blob());
    }

    /** What is on disk as a version (its blob need not be stored); absent for a blocked path. */
    public FileVersion version() {
      return blocked || kind == FileKind.ABSENT ? FileVersion.ABSENT : new FileVersion(kind, id, mode);
    }
  }

  public DiskFile read(String path, ShadowRepository hasher) throws IOException {
    Path file = resolve(path);
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException | NotDirectoryException missing) {
      return DiskFile.ABSENT;
    } catch (FileSystemException e) {
      // A file where a parent directory should be fails with ENOTDIR, which Java reports as a
      // plain FileSystemException: the path cannot exist, and obstacle() names what is in the way.
      if (!Files.isDirectory(file.getParent())) {
        return DiskFile.ABSENT;
      }
      throw e;
    }
    if (attributes.isSymbolicLink()) {
      FileState link = FileState.symlink(Files.readSymbolicLink(file).toString());
      return new DiskFile(FileKind.SYMLINK, false, hasher.hash(link), link.contentUnsafe().length, FileVersion.NO_MODE);
    }
    if (!attributes.isRegularFile()) {
      return new DiskFile(FileKind.ABSENT, true, null, 0, FileVersion.NO_MODE);
    }
    int mode = FileModes.readWithSpecialBits(file);
    FileKind kind = mode == FileVersion.NO_MODE ? FileKind.REGULAR : FileModes.kindOf(mode);
    return new DiskFile(kind, false, hasher.hash(file, attributes.size()), attributes.size(), mode);
  }

  public FileStamp stamp(String path) throws IOException {
    try {
      return FileStamp.of(resolve(path));
    } catch (NoSuchFileException | NotDirectoryException missing) {
      return FileStamp.ABSENT;
    } catch (FileSystemException e) {
      if (!Files.isDirectory(resolve(path).getParent())) {
        return FileStamp.ABSENT;
      }
      throw e;
    }
  }

  public FileState readState(String path) throws IOException {
    return FileState.read(resolve(path));
  }

  /**
   * Why {@code path} cannot be created: an ancestor is a link or a file that {@code removed}
   * does not take away. Empty when nothing is in the way.
   */
  public String obstacle(String path, Set<String> removed) throws IOException {
    int slash = path.indexOf('/');
    while (slash >= 0) {
      String ancestor = path.substring(0, slash);
      Path dir = resolve(ancestor);
      BasicFileAttributes attributes;
      try {
        attributes = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      } catch (NoSuchFileException missing) {
        return "";
      }
      if (attributes.isSymbolicLink()) {
        // a link this restore takes away first is no obstacle: the directory comes back in its place
        return removed.contains(ancestor) ? "" : ancestor + " is a symbolic link; Waymark does not write through links";
      }
      if (!attributes.isDirectory() && !removed.contains(ancestor)) {
        return ancestor + " is a file where a directory is needed";
      }
      if (!attributes.isDirectory()) {
        return "";
      }
      slash = path.indexOf('/', slash + 1);
    }
    return "";
  }

  /**
   * Whether {@code path} is a directory that deleting the files in {@code removed} takes away:
   * everything under it is such a file or a directory holding some (an empty one would stay).
   */
  public boolean emptiedBy(String path, Set<String> removed) throws IOException {
    Path dir = resolve(path);
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(dir, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException gone) {
      return false;
    }
    if (attributes.isOther()) {
      return true; // a FIFO, socket or device holds no content to lose (rm f; mkfifo f, undone)
    }
    if (!attributes.isDirectory()) {
      return false;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        // directories hold nothing of their own: empty ones are taken away with the rest (rm x; mkdir x, undone)
        if (!Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
            && !removed.contains(root.relativize(p).toString().replace(File.separatorChar, '/'))) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The directories on the way to {@code paths} (project-relative) that are symbolic links: what
   * is below them is not the project's, so it is neither read nor written, however the link ends
   * (in the project, a file a restore would read there is the link target's, not the path's).
   */
  public Set<String> linkedDirectories(Collection<String> paths) throws IOException {
    Set<String> ancestors = new TreeSet<>();
    for (String path : paths) {
      for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
        ancestors.add(path.substring(0, slash));
      }
    }
    Set<String> linked = new HashSet<>();
    for (String ancestor : ancestors) {
      if (Files.isSymbolicLink(resolve(ancestor))) {
        linked.add(ancestor);
      }
    }
    return linked;
  }

  /** Whether a directory on the way to {@code path} is one of {@code linked}. */
  public static boolean below(String path, Set<String> linked) {
    if (linked.isEmpty()) {
      return false;
    }
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      if (linked.contains(path.substring(0, slash))) {
        return true;
      }
    }
    return false;
  }

  /** Refuses {@code path} when a directory on its way is a symbolic link: it would lead out of the project. */
  public void refuseLinkedParent(String path) throws IOException {
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      String ancestor = path.substring(0, slash);
      Path dir = resolve(ancestor);
      if (Files.isSymbolicLink(dir)) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, ancestor + " is a symbolic link; Waymark does not read or write through links: \""
            + path + "\"");
      }
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return;
      }
    }
  }

  /**
   * Writes {@code version} at {@code path} atomically, with its recorded mode (without one: the
   * existing file's bits, else 0644 or 0755). The temporary file is created with that mode, less
   * the umask, before any content goes in: it is never wider than the file it becomes.
   */
  public void write(String path, FileVersion version, ShadowRepository source) throws IOException {
    Path target = forWrite(path);
    if (view == null) {
      directoryModes.makeDirectories(root, target.getParent());
    }
    if (aside != null && version.kind() != FileKind.SYMLINK) {
      clearEmptyDirectory(target);
      if (aside.putIn(target, version)) {
        return;
      }
    }
    Path temp = tempFor(target);
    Files.deleteIfExists(temp);
    if (version.kind() == FileKind.SYMLINK) {
      Files.createSymbolicLink(temp, Path.of(new String(source.read(version.blob()), StandardCharsets.UTF_8)));
    } else {
      int mode = version.hasMode() ? version.mode() : FileModes.fallback(version.kind(), target);
      try (OutputStream out = Channels.newOutputStream(FileModes.create(temp, mode))) {
        source.copyTo(version.blob(), out);
      }
      tempWrittenHook.accept(temp);
      FileModes.set(temp, mode); // what the umask took off
    }
    clearEmptyDirectory(target);
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  /** What {@link #putBack} found at a path. */
  public enum PutBack { ALREADY_THERE, PUT_BACK, CHANGED_SINCE }

  /**
   * Undoes one journalled write: if {@code path} still holds {@code written}, puts {@code prior}
   * back (deleting the file if it did not exist); a path someone changed since is left alone.
   */
  public PutBack putBack(String path, FileVersion prior, FileVersion written, ShadowRepository source) throws IOException {
    Files.deleteIfExists(tempFor(resolve(path)));
    DiskFile disk = read(path, source);
    if (disk.matches(prior)) {
      return PutBack.ALREADY_THERE;
    }
    if (!disk.matches(written)) {
      return PutBack.CHANGED_SINCE;
    }
    if (prior.exists()) {
      write(path, prior, source);
    } else {
      delete(path);
    }
    return PutBack.PUT_BACK;
  }

  /** Deletes the file at {@code path}, then each parent directory that this left empty. */
  void delete(String path) throws IOException {
    if (view != null) {
      view.delete(path);
      return;
    }
    Path target = resolve(path);
    Files.deleteIfExists(target);
    removeEmptyParents(target);
  }

  /**
   * Takes the file at {@code path} away as {@link #delete} does, keeping it for a restore that
   * brings {@code holds} back when it can; false, with nothing done, when it was changed after it
   * was checked ({@code checked} at {@code checkedAt}).
   */
  public boolean remove(String path, FileVersion holds, FileStamp checked, long checkedAt, ShadowRepository hasher) throws IOException {
    if (view != null) {
      if (!stamp(path).equals(checked)) {
        return false;
      }
      view.delete(path);
      return true;
    }
    Path target = resolve(path);
    SetAside.Taken taken = aside == null ? SetAside.Taken.NOT_KEPT : aside.takeOut(target, holds, checked, checkedAt, hasher);
    if (taken == SetAside.Taken.CHANGED) {
      return false;
    }
    if (taken == SetAside.Taken.NOT_KEPT) {
      Files.deleteIfExists(target);
    }
    removeEmptyParents(target);
    return true;
  }

  /**
   * Before a restore writes over {@code path}, which it checked ({@code checked} at
   * {@code checkedAt}) to hold {@code holds}: keeps that file for a restore that brings it back.
   * False, with nothing done, when it was changed after the check.
   */
  public boolean keepReplaced(String path, FileVersion holds, FileStamp checked, long checkedAt, ShadowRepository hasher)
      throws IOException {
    return aside == null || aside.keepReplaced(resolve(path), holds, checked, checkedAt, hasher) != SetAside.Taken.CHANGED;
  }

  private void removeEmptyParents(Path target) throws IOException {
    int madeAs = FileModes.newDirectoryMode();
    for (Path dir = target.getParent(); dir != null && !dir.equals(root) && dir.startsWith(root); dir = dir.getParent()) {
      // directories are not recorded: only one a restore would make again just so goes (not a private 0700 one)
      try {
        if (madeAs != FileVersion.NO_MODE && FileModes.read(dir) != madeAs) {
          break;
        }
        Files.delete(dir);
      } catch (DirectoryNotEmptyException | NoSuchFileException stop) {
        break;
      }
    }
  }

  /** Lets a test look at a temporary file once it holds the content, before it gets its final mode. */
  public void onTempWritten(Consumer<Path> hook) {
    tempWrittenHook = hook;
  }

  public static Path tempFor(Path target) {
    return TempNames.beside(target, TEMP_SUFFIX);
  }

  /** Deletes the directory at {@code target} if there is one, and the empty directories in it: never a file. */
  private static void clearEmptyDirectory(Path target) throws IOException {
    if (!Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    // deepest first; a file anywhere makes its directory's delete fail: a full one is reported as an obstacle first
    List<Path> directories = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(target)) {
      walk.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)).forEach(directories::add);
    }
    for (int i = directories.size() - 1; i >= 0; i--) {
      Files.delete(directories.get(i));
    }
  }
}
