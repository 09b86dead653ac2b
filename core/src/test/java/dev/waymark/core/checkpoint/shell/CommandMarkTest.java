package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A command's mark finds that command's processes and no other's. */
class CommandMarkTest {
  @TempDir Path temp;

  @Test
  void aMarkFindsItsOwnProcessesAndNotThoseOfAMarkItBegins() throws Exception {
    assumeTrue(CommandMark.findable(), "processes are found through /proc");
    CommandMark mark = CommandMark.random();
    ProcessBuilder command = new ProcessBuilder("sleep", "29.31");
    command.environment().put(CommandMark.VARIABLE, mark.value());
    Process process = command.start();
    try {
      assertThat(mark.processes()).extracting(ProcessHandle::pid).containsExactly(process.pid());
      assertThat(new CommandMark(mark.value().substring(0, 8)).processes()).isEmpty();
      assertThat(new CommandMark("").processes()).isEmpty();
    } finally {
      process.destroyForcibly();
    }
  }

  @Test
  void aTabsJobsFileYieldsOnlyMarksAsWaymarkMakesThemAndIsThenGone() throws Exception {
    ShellJournal journal = new ShellJournal(temp.resolve("shell-journal"));
    String mark = CommandMark.random().value();
    journal.writeJobs("t1", java.util.Set.of(mark));
    Files.writeString(temp.resolve("shell-journal/t1.jobs"), "a\n\n" + mark + "\n" + mark.substring(0, 8) + "\n", java.nio.file.StandardOpenOption.APPEND);

    assertThat(journal.takeJobs("t1")).containsExactly(mark);
    assertThat(journal.takeJobs("t1")).isEmpty();
  }
}
