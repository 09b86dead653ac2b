package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
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
    journal.writeJobs("t1", Set.of(mark));
    Files.writeString(temp.resolve("shell-journal/t1.jobs"), "a\n\n" + mark + "\n" + mark.substring(0, 8) + "\n", StandardOpenOption.APPEND);

    assertThat(journal.takeJobs("t1")).containsExactly(mark);
    assertThat(journal.takeJobs("t1")).isEmpty();
  }

  @Test
  void aSessionFindsTheProcessesThatDroppedTheMarkButNeverWaymarksOwnSessionOrOneWhosePidWasGivenAgain()
      throws Exception {
    assumeTrue(CommandMark.findable(), "processes are found through /proc");
    Process leader = new ProcessBuilder("setsid", "env", "-i", "sleep", "29.32").start();
    try {
      CommandMark mark = CommandMark.random().leading(leader.toHandle());
      assertThat(CommandMark.parse(mark.encoded())).contains(mark);
      assertThat(mark.processes()).extracting(ProcessHandle::pid).containsExactly(leader.pid());

      long ownSession = CommandMark.sessionOf(ProcessHandle.current().pid());
      assertThat(new CommandMark(mark.value(), ownSession, 0).processes()).as("the user's terminal session").isEmpty();
      assertThat(new CommandMark(mark.value(), leader.pid(), mark.sessionStartMillis() - 60_000).processes())
          .as("the pid names another process now").isEmpty();
      assertThat(new CommandMark(mark.value(), leader.pid(), 0).processes())
          .as("the leader had ended before its start was read: a live one of its pid is another").isEmpty();
      assertThat(CommandMark.parse(mark.value() + "@x:1")).isEmpty();
      assertThat(CommandMark.parse(mark.value())).contains(new CommandMark(mark.value()));
    } finally {
      leader.destroyForcibly();
    }
  }
}
