package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journals of the shell commands running on one project. */
class ShellJournalTest {
  @TempDir Path temp;

  @Test
  void aCommandRunsHereOnlyWhileALiveProcessJournalsItsMarkInThisProjectsStore() throws Exception {
    // a Waymark started inside a command skips the slot only for that command's own project: a mark
    // journalled in another project's store is no reason to run beside this one's commands
    ShellJournal here = new ShellJournal(temp.resolve("here/shell-journal"));
    ShellJournal elsewhere = new ShellJournal(temp.resolve("elsewhere/shell-journal"));
    CommandMark parent = CommandMark.random();
    Path journal = elsewhere.write("tab", 1, System.currentTimeMillis(), 7, 1 << 20, Map.of(), parent);

    assertThat(elsewhere.running(parent.value())).isTrue();
    assertThat(here.running(parent.value())).as("another project's command").isFalse();
    assertThat(elsewhere.running(CommandMark.random().value())).isFalse();
    Files.delete(journal);
    assertThat(elsewhere.running(parent.value())).as("the command ended").isFalse();
  }
}
