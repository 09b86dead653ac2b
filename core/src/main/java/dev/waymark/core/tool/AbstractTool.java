package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.checkpoint.Turn;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileModes;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.layer.View;
import dev.waymark.core.model.ToolSpec;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every tool shares: its spec, and the rule that a call never throws. Bad arguments,
 * refused paths and I/O failures all come back as an error result the model can act on.
 */
abstract class AbstractTool implements Tool {
  private static final Logger LOG = LoggerFactory.getLogger(AbstractTool.class);
  static final int BINARY_SNIFF = 8_000;

  private final ToolSpec spec;
  private final ToolKind kind;
  final ToolSettings settings;

  AbstractTool(String name, String description, Args.Schema parameters, ToolKind kind, ToolSettings settings) {
    this.spec = new ToolSpec(name, description, parameters.build());
    this.kind = kind;
    this.settings = settings;
  }

  @Override
  public final ToolSpec spec() {
    return spec;
  }

  @Override
  public final ToolKind kind() {
    return kind;
  }

  @Override
  public final String describe(JsonNode arguments) {
    try {
      return summary(Args.of(arguments));
    } catch (ToolError | RuntimeException e) {
      return name() + " (invalid arguments)";
    }
  }

  @Override
  public final ToolResult run(JsonNode arguments, ToolContext context) {
    try {
      return execute(Args.of(arguments), context);
    } catch (ToolError e) {
      return ToolResult.error(e.kind(), e.getMessage());
    } catch (CheckpointException e) {
      return ToolResult.error(ToolError.kindOf(e), name() + " failed: " + e.getMessage());
    } catch (IOException e) {
      return ToolResult.error(ErrorKind.STORE_IO, name() + " failed: " + describe(e));
    } catch (RuntimeException e) {
      LOG.warn("{} failed unexpectedly", name(), e);
      return ToolResult.error(ErrorKind.INTERNAL, name() + " failed unexpectedly" + (e.getMessage() == null ? "." : ": " + e.getMessage()));
    }
  }

  @Override
  public final String preview(JsonNode arguments, Path projectRoot) {
    try {
      return preview(Args.of(arguments), ProjectPaths.of(projectRoot));
    } catch (ToolError | IOException | RuntimeException e) {
      return ""; // the call itself will report what is wrong
    }
  }

  @Override
  public final String preview(JsonNode arguments, ToolContext context) {
    try {
      return preview(Args.of(arguments), ProjectPaths.of(context));
    } catch (ToolError | IOException | RuntimeException e) {
      return ""; // the call itself will report what is wrong
    }
  }

  /** What the call would change of the files {@code paths} show (the project's, or an isolated tab's view). */
  String preview(Args args, ProjectPaths paths) throws ToolError, IOException {
    return "";
  }

  @Override
  public final Optional<Sensitive> sensitive(JsonNode arguments, Path projectRoot) {
    try {
      return sensitive(Args.of(arguments), projectRoot);
    } catch (ToolError | RuntimeException e) {
      return Optional.empty(); // the call fails on its arguments before it touches anything
    }
  }

  Optional<Sensitive> sensitive(Args args, Path projectRoot) throws ToolError {
    return Optional.empty();
  }

  /** {@link Sensitive#SECRETS} when {@code path} names a secrets file however it is spelled. */
  static Optional<Sensitive> secretsAt(String path, Path projectRoot) {
    return matches(path, projectRoot, false, Tool::isSecretsFile) ? Optional.of(Sensitive.SECRETS) : Optional.empty();
  }

  /** {@link Sensitive#WAYMARK_FILES} when writing {@code path} would change a file of {@code .waymark/}. */
  static Optional<Sensitive> waymarkFilesAt(String path, Path projectRoot) {
    return matches(path, projectRoot, true, Tool::isWaymarkFile) ? Optional.of(Sensitive.WAYMARK_FILES) : Optional.empty();
  }

  /**
   * Whether {@code path} passes {@code rule} as written once normalized ({@code ./x/../.env},
   * {@code .env/.}) or as the file it resolves to, links followed.
   */
  private static boolean matches(String path, Path projectRoot, boolean write,
      Predicate<String> rule) {
    try {
      if (rule.test(Path.of(path.isEmpty() ? "." : path).normalize().toString())) {
        return true;
      }
    } catch (InvalidPathException e) {
      return false; // refused before anything is touched
    }
    try {
      ProjectPaths paths = ProjectPaths.of(projectRoot);
      return rule.test((write ? paths.forWrite(path) : paths.forRead(path)).relative());
    } catch (ToolError e) {
      return false; // refused before anything is touched
    }
  }

  /** The file's text now, or null when it does not exist or is no UTF-8 text small enough to preview. */
  static String currentText(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    if (Files.size(file) > PREVIEW_LIMIT) {
      return null;
    }
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(Files.readAllBytes(file))).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static final long PREVIEW_LIMIT = 4L << 20;

  abstract String summary(Args args) throws ToolError;

  abstract ToolResult execute(Args args, ToolContext context) throws ToolError, IOException;

  /** An I/O failure in words, not as a Java class name. */
  static String describe(IOException e) {
    String what = e instanceof NoSuchFileException ? "no such file"
        : e instanceof AccessDeniedException ? "permission denied"
        : e instanceof FileAlreadyExistsException ? "already exists"
        : e instanceof NotDirectoryException ? "not a directory"
        : e instanceof DirectoryNotEmptyException ? "directory not empty"
        : null;
    if (what == null) {
      return e.getMessage() == null ? "an I/O error" : e.getMessage();
    }
    return e.getMessage() == null ? what : what + ": " + e.getMessage();
  }

  /**
   * Changes one file and records it in the turn (before, change, after from disk), so that undo
   * restores it. Without a turn the change is made unrecorded.
   */
  /** Refuses to change a file too large to checkpoint: what Waymark cannot put back, it does not touch. */
  void checkCheckpointable(ProjectPaths.Resolved file) throws ToolError, IOException {
    refuseSpecialFile(file);
    if (Files.isRegularFile(file.file(), LinkOption.NOFOLLOW_LINKS)
        && Files.size(file.file()) > settings.maxFileSize()) {
      throw new ToolError(ErrorKind.REFUSED, file.display() + " is " + Files.size(file.file()) + " bytes, over the " + settings.maxFileSize()
          + "-byte limit for files Waymark checkpoints; it is left unchanged. Change it with run_shell if you must "
          + "(that change cannot be undone).");
    }
  }

  /**
   * Refuses at once a FIFO, socket or device, or a link to one: opening it to read or write could
   * wait forever, and it is no file content Waymark can checkpoint.
   */
  static void refuseSpecialFile(ProjectPaths.Resolved file) throws ToolError, IOException {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file.file(), BasicFileAttributes.class,
          LinkOption.NOFOLLOW_LINKS);
      if (attributes.isSymbolicLink()) {
        attributes = Files.readAttributes(file.file(), BasicFileAttributes.class);
      }
    } catch (NoSuchFileException missing) {
      return; // a new file, or a dangling link
    }
    if (attributes.isOther()) {
      throw new ToolError(ErrorKind.REFUSED, file.display() + " is a FIFO, socket or device, not a regular file; it is left alone.");
    }
  }

  /**
   * Writes {@code content} to one file as a change of the turn. The change is recorded and kept
   * in the store before the file is touched, so a crash at any moment loses neither the old
   * content nor the new; when the store cannot take it (its disk is full, it was removed), the
   * file is not touched at all.
   */
  static void writeRecorded(Turn turn, ProjectPaths.Resolved file, byte[] content) throws IOException {
    if (turn == null) {
      write(file, content, FileVersion.NO_MODE);
      return;
    }
    FileState before = turn.read(file.relative());
    // The file keeps its mode; a new one gets what the umask gives. Recorded as written, so undo and redo bring it back.
    int mode = before.kind() == FileKind.REGULAR || before.kind() == FileKind.EXECUTABLE ? before.mode()
        : before.exists() ? FileVersion.NO_MODE : FileModes.newFileMode();
    FileState after = mode == FileVersion.NO_MODE
        ? FileState.of(before.kind() == FileKind.EXECUTABLE ? FileKind.EXECUTABLE : FileKind.REGULAR, content)
        : FileState.withMode(content, mode);
    Optional<FileChange> previous;
    try {
      previous = turn.recordAhead(file.relative(), before, after);
    } catch (CheckpointException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, file.relative() + " could not be checkpointed (" + e.getMessage()
          + "), so the change was not made: the file is as it was.", e);
    }
    try {
      Optional<Path> view = turn.viewDirectory();
      if (view.isPresent()) {
        writeInView(view.get(), file, content, after.mode());
      } else {
        write(file, content, after.mode());
      }
    } catch (IOException | RuntimeException e) {
      turn.withdraw(file.relative(), previous);
      throw e;
    }
  }

  /** An isolated tab's write: into its view, the project untouched; without a mode, the one the view shows, else 0644 less the umask. */
  private static void writeInView(Path viewDir, ProjectPaths.Resolved file, byte[] content, int mode) throws IOException {
    View view = View.read(viewDir)
        .orElseThrow(() -> new IOException("the tab's view is gone from " + viewDir));
    int bits = mode != FileVersion.NO_MODE ? mode
        : Files.isRegularFile(file.file(), LinkOption.NOFOLLOW_LINKS)
            ? (Integer) Files.getAttribute(file.file(), "unix:mode") & 07777 : FileModes.newFileMode();
    if (bits < 0) {
      bits = 0644;
    }
    view.write(file.relative(), content, bits);
  }

  private static void write(ProjectPaths.Resolved file, byte[] content, int mode) throws IOException {
    Files.createDirectories(file.file().getParent());
    AtomicWrite.replace(file.file(), content, mode);
  }

  /** Whether the file's first bytes hold a NUL, git's test for binary content. */
  static boolean looksBinary(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      byte[] head = in.readNBytes(BINARY_SNIFF);
      for (byte b : head) {
        if (b == 0) {
          return true;
        }
      }
      return false;
    }
  }
}
