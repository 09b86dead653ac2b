package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.checkpoint.store.RestoreJournal;
import dev.waymark.core.testing.GitCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restore writes each file back with the permission bits it had when it was recorded (0600
 * stays 0600, 0700 stays 0700), and no temporary file ever holds content with wider permissions
 * than the file it becomes.
 */
class FileModeTest {
  private static final List<String> MODES = List.of("rw-------", "rwx------", "rw-r-----", "rwxr-x---", "r--------",
      "rw-rw-r--");

  @TempDir Path temp;
  StoreFixture fx;
  AgentTool tool;
  CheckpointTree tab;

  @BeforeEach
  void open() throws IOException {
    fx = new StoreFixture(temp);
    tool = new AgentTool(fx.project);
    tab = fx.store.openTab("modes");
  }

  @AfterEach
  void close() {
    fx.close();
  }

  /** One file per mode, named after it. */
  private Map<String, String> filesInEveryMode() throws IOException {
    Map<String, String> files = new LinkedHashMap<>();
    for (String mode : MODES) {
      String name = "f-" + mode.replace('-', '_') + ".txt";
      fx.writeExternally(name, "content of " + name + "\n");
      Files.setPosixFilePermissions(fx.file(name), PosixFilePermissions.fromString(mode));
      files.put(name, mode);
    }
    return files;
  }

  private String permissions(String path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(fx.file(path), LinkOption.NOFOLLOW_LINKS));
  }

  @Test
  void aFileDeletedByATurnComesBackWithItsOwnMode() throws IOException {
    Map<String, String> files = filesInEveryMode();
    Turn turn = tab.begin();
    for (String name : files.keySet()) {
      tool.delete(turn, name);
    }
    turn.finish(CheckpointStatus.DONE);

    assertThat(tab.undo().applied()).isTrue();
    for (var e : files.entrySet()) {
      assertThat(permissions(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
    }
    tab.redo();
    assertThat(fx.projectFiles()).isEmpty();
    tab.goTo(0);
    for (var e : files.entrySet()) {
      assertThat(permissions(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
    }
  }

  @Test
  void aFileATurnCreatedAndMadePrivateIsRecreatedPrivateByRedo() throws IOException {
    Turn turn = tab.begin();
    tool.write(turn, "secret.env", "TOKEN=1\n");
    tool.chmod(turn, "secret.env", "rw-------");
    tool.write(turn, "bin/run", "#!/bin/sh\n");
    tool.chmod(turn, "bin/run", "rwx------");
    turn.finish(CheckpointStatus.DONE);

    tab.undo();
    assertThat(fx.projectFiles()).isEmpty();
    tab.redo();
    assertThat(permissions("secret.env")).isEqualTo("rw-------");
    assertThat(permissions("bin/run")).isEqualTo("rwx------");
  }

  @Test
  void aModeOnlyChangeIsUndoneAndRedone() throws IOException {
    fx.writeExternally("notes.txt", "n\n");
    Files.setPosixFilePermissions(fx.file("notes.txt"), PosixFilePermissions.fromString("rw-r--r--"));
    Turn turn = tab.begin();
    tool.chmod(turn, "notes.txt", "rw-------");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    assertThat(cp.changes()).as("a chmod that keeps the kind is still a change").hasSize(1);

    tab.undo();
    assertThat(permissions("notes.txt")).isEqualTo("rw-r--r--");
    assertThat(tab.diff(0).isEmpty()).isTrue();
    assertThat(tab.diff(1).files()).singleElement().satisfies(d -> assertThat(d.unified()).contains("old mode 100600",
        "new mode 100644"));
    tab.redo();
    assertThat(permissions("notes.txt")).isEqualTo("rw-------");
  }

  @Test
  void aModeTheUserSetSinceIsKeptByUndoWithOrWithoutAnEdit() throws IOException {
    fx.writeExternally("plain.txt", "1\n2\n3\n");
    fx.writeExternally("edited.txt", "1\n2\n3\n");
    Turn turn = tab.begin();
    tool.write(turn, "plain.txt", "1\n2\nthree\n");
    tool.write(turn, "edited.txt", "1\n2\nthree\n");
    turn.finish(CheckpointStatus.DONE);
    // the user makes both private, and edits one of them elsewhere
    Files.setPosixFilePermissions(fx.file("plain.txt"), PosixFilePermissions.fromString("rw-------"));
    Files.writeString(fx.file("edited.txt"), "one\n2\nthree\n");
    Files.setPosixFilePermissions(fx.file("edited.txt"), PosixFilePermissions.fromString("rw-------"));

    RestoreResult undone = tab.undo();

    assertThat(undone.applied()).isTrue();
    assertThat(undone.merged()).containsExactly("edited.txt");
    assertThat(fx.read("plain.txt")).isEqualTo("1\n2\n3\n");
    assertThat(fx.read("edited.txt")).isEqualTo("one\n2\n3\n");
    assertThat(permissions("plain.txt")).isEqualTo("rw-------");
    assertThat(permissions("edited.txt")).isEqualTo("rw-------");
  }

  @Test
  void aShellCommandsChmodIsRecordedAndUndone() throws IOException {
    for (String name : List.of("a.txt", "b.sh")) {
      fx.writeExternally(name, name + "\n");
      Files.setLastModifiedTime(fx.file(name), FileTime.from(Instant.now().minusSeconds(60)));
    }
    Files.setPosixFilePermissions(fx.file("a.txt"), PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(fx.file("b.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
    Turn turn = tab.begin();
    WorkTreeSnapshot snapshot = turn.snapshotWorkTree(1 << 20);
    // the command: chmod 600 a.txt; chmod 700 b.sh
    Files.setPosixFilePermissions(fx.file("a.txt"), PosixFilePermissions.fromString("rw-------"));
    Files.setPosixFilePermissions(fx.file("b.sh"), PosixFilePermissions.fromString("rwx------"));
    assertThat(snapshot.recordChanges().recorded()).extracting(FileChange::path).containsExactly("a.txt", "b.sh");
    turn.finish(CheckpointStatus.DONE);

    tab.undo();
    assertThat(permissions("a.txt")).isEqualTo("rw-r--r--");
    assertThat(permissions("b.sh")).isEqualTo("rwxr-xr-x");
    tab.redo();
    assertThat(permissions("a.txt")).isEqualTo("rw-------");
    assertThat(permissions("b.sh")).isEqualTo("rwx------");
  }

  @Test
  void aKilledShellCommandsChmodAndDeletionAreRecoveredWithTheirModes() throws Exception {
    for (String name : List.of("notes.txt", "secret.env")) {
      fx.writeExternally(name, name + "\n");
      Files.setLastModifiedTime(fx.file(name), FileTime.from(Instant.now().minusSeconds(60)));
    }
    Files.setPosixFilePermissions(fx.file("notes.txt"), PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(fx.file("secret.env"), PosixFilePermissions.fromString("rw-------"));
    Turn turn = tab.begin();
    TreeSnapshot saved = tab.snapshot(); // the session as saved when the turn started
    turn.snapshotWorkTree(1 << 20);
    // the command: chmod 600 notes.txt; rm secret.env; then the process is killed before recording
    Files.setPosixFilePermissions(fx.file("notes.txt"), PosixFilePermissions.fromString("rw-------"));
    Files.delete(fx.file("secret.env"));
    fx.close();
    orphanEveryShellJournal();

    try (ShadowStore reopened = fx.openAgain()) {
      CheckpointTree back = reopened.restoreTab(saved).tree();
      assertThat(back.checkpoint(1).changes()).extracting(FileChange::path).containsExactly("notes.txt", "secret.env");
      assertThat(back.undo().applied()).isTrue();
    }
    assertThat(permissions("notes.txt")).isEqualTo("rw-r--r--");
    assertThat(permissions("secret.env")).isEqualTo("rw-------");
    fx = new StoreFixture(temp.resolve("again"));
  }

  /** Makes every shell journal look as if its process had died. */
  private void orphanEveryShellJournal() throws Exception {
    Process gone = new ProcessBuilder("true").start();
    gone.waitFor();
    var json = new ObjectMapper();
    try (var files = Files.walk(fx.home)) {
      for (Path journal : files.filter(p -> p.toString().contains("shell-journal") && p.toString().endsWith(".json"))
          .toList()) {
        var node = (ObjectNode) json.readTree(journal.toFile());
        node.put("pid", gone.pid());
        json.writeValue(journal.toFile(), node);
      }
    }
  }

  @Test
  void noTemporaryFileIsEverWiderThanTheFileItBecomes() throws IOException {
    Map<String, String> files = filesInEveryMode();
    Turn turn = tab.begin();
    List<String> names = new ArrayList<>(files.keySet());
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (i % 2 == 0) {
        tool.delete(turn, name);
      } else {
        Files.setPosixFilePermissions(fx.file(name), PosixFilePermissions.fromString("rw-------"));
        tool.write(turn, name, "changed\n");
        Files.setPosixFilePermissions(fx.file(name), PosixFilePermissions.fromString(files.get(name)));
      }
    }
    turn.finish(CheckpointStatus.DONE);
    Map<String, Set<PosixFilePermission>> seen = new LinkedHashMap<>();
    fx.store.workTree().onTempWritten(t -> {
      try {
        String target = t.getFileName().toString();
        target = target.substring(1, target.length() - WorkTree.TEMP_SUFFIX.length());
        seen.put(target, Files.getPosixFilePermissions(t, LinkOption.NOFOLLOW_LINKS));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });

    tab.undo();
    tab.redo();
    tab.undo();

    assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(files.keySet());
    for (var e : seen.entrySet()) {
      Set<PosixFilePermission> target = PosixFilePermissions.fromString(files.get(e.getKey()));
      assertThat(target).as("the temporary file of %s held %s", e.getKey(), PosixFilePermissions.toString(e.getValue()))
          .containsAll(e.getValue());
      assertThat(permissions(e.getKey())).isEqualTo(files.get(e.getKey()));
    }
  }

  @Test
  void theModeIsInTheManifestGitReadsAndAnotherProcessRestoresIt() throws IOException {
    GitCli.requireGit();
    fx.writeExternally("secret.env", "TOKEN=1\n");
    Files.setPosixFilePermissions(fx.file("secret.env"), PosixFilePermissions.fromString("rw-------"));
    Turn turn = tab.begin();
    tool.delete(turn, "secret.env");
    Checkpoint cp = turn.finish(CheckpointStatus.DONE);
    TreeSnapshot saved = tab.snapshot();
    fx.close();

    Path shadow = fx.store.shadowDirectory();
    String manifest = new String(GitCli.show(shadow, cp.tag().orElseThrow(), "waymark.json"), UTF_8);
    assertThat(manifest).contains("\"mode\" : \"0600\"");
    assertThat(GitCli.ok(shadow, "--git-dir=" + shadow, "fsck", "--strict", "--full", "--no-dangling", "--no-progress")
        .text()).isEmpty();

    // brought back from a session's snapshot
    try (ShadowStore reopened = fx.openAgain()) {
      reopened.restoreTab(saved).tree().undo();
    }
    assertThat(permissions("secret.env")).isEqualTo("rw-------");
    Files.delete(fx.file("secret.env"));
    // and from the tags alone
    try (ShadowStore reopened = fx.openAgain()) {
      reopened.loadTab("modes").undo();
    }
    assertThat(permissions("secret.env")).isEqualTo("rw-------");
    fx = new StoreFixture(temp.resolve("again"));
  }

  @Test
  void anInterruptedRestoreIsRolledBackWithTheRecordedMode() throws IOException {
    fx.writeExternally("secret.env", "TOKEN=1\n");
    Files.setPosixFilePermissions(fx.file("secret.env"), PosixFilePermissions.fromString("rw-------"));
    Turn turn = tab.begin();
    tool.delete(turn, "secret.env");
    FileChange change = turn.finish(CheckpointStatus.DONE).changes().get(0);
    tab.undo();
    // As if a redo deleted the file, then the process died before it removed its journal.
    RestoreJournal.write(fx.store.journalFile(), new RestoreJournal.Content(1, "modes", 0, 1,
        List.of(RestoreJournal.Entry.of("secret.env", change.before(), change.after()))));
    Files.delete(fx.file("secret.env"));
    fx.close();

    try (ShadowStore reopened = fx.openAgain()) {
      assertThat(reopened.recovered()).singleElement().asString().contains("put back secret.env");
    }
    assertThat(permissions("secret.env")).isEqualTo("rw-------");
    fx = new StoreFixture(temp.resolve("again"));
  }

  @Test
  void aVersionRecordedWithoutAModeIsWrittenAsBefore() throws IOException {
    // stores and sessions written before modes were recorded: git's 100644 or 100755 only
    FileVersion plain = fx.store.repo().insert(List.of(FileState.regular("x\n"))).get(0);
    FileVersion old = new FileVersion(FileKind.REGULAR, plain.blob());
    assertThat(old.mode()).isEqualTo(FileVersion.NO_MODE);
    fx.store.workTree().write("new.txt", old, fx.store.repo());
    assertThat(permissions("new.txt")).isEqualTo("rw-r--r--");
    fx.writeExternally("kept.txt", "k\n");
    Files.setPosixFilePermissions(fx.file("kept.txt"), PosixFilePermissions.fromString("rw-------"));
    fx.store.workTree().write("kept.txt", old, fx.store.repo());
    assertThat(permissions("kept.txt")).isEqualTo("rw-------");
    assertThat(fx.read("kept.txt")).isEqualTo("x\n");
  }
}
