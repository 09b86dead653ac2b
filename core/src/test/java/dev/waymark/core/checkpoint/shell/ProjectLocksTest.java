package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The apply lock is the project's, not the home's: every Waymark on one project finds the same one. */
class ProjectLocksTest {
  @TempDir Path temp;

  @Test
  void oneProjectHasOneApplyLockHoweverItIsSpelledAndWhateverTheHome() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path link = Files.createSymbolicLink(temp.resolve("link"), project);
    Path other = Files.createDirectories(temp.resolve("other"));

    Path lock = ProjectLocks.apply(project).orElseThrow();

    assertThat(ProjectLocks.apply(link)).contains(lock);
    assertThat(ProjectLocks.apply(project.resolve("."))).contains(lock);
    assertThat(ProjectLocks.apply(other)).get().isNotEqualTo(lock);
    assertThat(lock.startsWith(temp)).as("beside no WAYMARK_HOME").isFalse();
    assertThat(Files.getPosixFilePermissions(lock.getParent())).hasSize(3); // the user's alone
    try (CommandSlot.Held held = new CommandSlot(lock).take(0).orElseThrow()) {
      assertThat(new CommandSlot(ProjectLocks.apply(link).orElseThrow()).take(0))
          .as("held through one spelling, busy through the other").isEmpty();
    }
  }
}
