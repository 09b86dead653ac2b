package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import org.eclipse.jgit.util.FS;

/**
 * A checkpoint session run in a separate JVM by {@link GitInteropTest}, so that the test controls
 * the process environment JGit sees ({@code PATH}, {@code HOME}, {@code XDG_CONFIG_HOME}).
 *
 * <p>Arguments: project directory, Waymark home, tab id. It writes {@link #CRLF} and {@link #LF}
 * and an executable script in #1, edits and deletes in #2, then undoes, redoes and undoes again
 * (checking the disk after each move), saves as {@code child}, and prints {@code shadow=<dir>}
 * and {@code userHome=<dir JGit takes for the user's home>}. Any failure exits non-zero.
 */
public final class ChildJvmSession {
  static final byte[] CRLF = "first line\r\nsecond line\r\n".getBytes(UTF_8);
  static final byte[] CRLF_EDITED = "first line\r\nline two, edited\r\n".getBytes(UTF_8);
  static final byte[] LF = "unix\nlines\n".getBytes(UTF_8);
  static final byte[] SCRIPT = "#!/bin/sh\necho hi\n".getBytes(UTF_8);

  private ChildJvmSession() {}

  public static void main(String[] args) throws Exception {
    Path project = Path.of(args[0]);
    Path home = Path.of(args[1]);
    String tabId = args[2];
    try (ShadowStore store = ShadowStore.open(project, new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      CheckpointTree tab = store.openTab(tabId);

      Turn first = tab.begin();
      write(first, project, "crlf.txt", CRLF);
      write(first, project, "lf.txt", LF);
      FileState before = first.read("run.sh");
      Files.write(project.resolve("run.sh"), SCRIPT);
      Files.setPosixFilePermissions(project.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
      first.recordFromDisk("run.sh", before);
      first.finish(CheckpointStatus.DONE);

      Turn second = tab.begin();
      write(second, project, "crlf.txt", CRLF_EDITED);
      FileState lf = second.read("lf.txt");
      Files.delete(project.resolve("lf.txt"));
      second.recordFromDisk("lf.txt", lf);
      second.finish(CheckpointStatus.DONE);

      check(tab.undo().applied(), "undo applied");
      check(Arrays.equals(Files.readAllBytes(project.resolve("crlf.txt")), CRLF), "undo restored crlf.txt");
      check(Arrays.equals(Files.readAllBytes(project.resolve("lf.txt")), LF), "undo restored lf.txt");
      check(tab.redo().applied(), "redo applied");
      check(Arrays.equals(Files.readAllBytes(project.resolve("crlf.txt")), CRLF_EDITED), "redo rewrote crlf.txt");
      check(!Files.exists(project.resolve("lf.txt")), "redo deleted lf.txt");
      check(tab.undo().applied(), "second undo applied");
      tab.save("child");

      System.out.println("shadow=" + store.shadowDirectory());
      System.out.println("userHome=" + FS.DETECTED.userHome());
    }
  }

  private static void write(Turn turn, Path project, String path, byte[] content) throws Exception {
    FileState before = turn.read(path);
    Files.write(project.resolve(path), content);
    turn.recordFromDisk(path, before);
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("check failed: " + what);
    }
  }
}
