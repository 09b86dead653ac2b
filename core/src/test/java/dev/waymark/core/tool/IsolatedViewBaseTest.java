package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.testing.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The base a land merges from (#48 item 3): what the project held when the isolated tab first
 * changed a file, taken before a command could change it. A user's save made while the tab's
 * command ran is never taken for that base, so the land does not silently put the tab's version
 * over it: it merges, or keeps the user's and sets the tab's aside.
 */
class IsolatedViewBaseTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    ToolSettings settings = ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))));
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "one\ntwo\nthree\nfour\n");
    f = new ToolFixture(temp, settings, List.of(), true);
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void aSaveOfTheSameLinesWhileTheTabsCommandRanIsKeptAndTheTabsVersionSetAside() throws Exception {
    var command = startedAndWrote("sed -i 's/four/FOUR, the tab/' a.txt; sleep 1", "a.txt");
    f.write("a.txt", "one\ntwo\nthree\nfour, the user's save\n");
    assertThat(command.get().isError()).isFalse();
    f.finish();

    var landed = f.tab.land();
    assertThat(f.read("a.txt")).as("the user's save is not reverted").isEqualTo("one\ntwo\nthree\nfour, the user's save\n");
    assertThat(landed.notLanded()).anySatisfy(line -> assertThat(line).startsWith("a.txt"));
    assertThat(landed.rescueTag()).as("the tab's version is kept").isPresent();
  }

  @Test
  void aSaveOfOtherLinesWhileTheTabsCommandRanIsKeptToo() throws Exception {
    // what the project held as the command started is not known here (no git index, no write of a tab):
    // a change of both sides is not merged from a guess
    var command = startedAndWrote("sed -i 's/four/FOUR/' a.txt; sleep 1", "a.txt");
    f.write("a.txt", "ONE\ntwo\nthree\nfour\n");
    assertThat(command.get().isError()).isFalse();
    f.finish();

    var landed = f.tab.land();
    assertThat(f.read("a.txt")).isEqualTo("ONE\ntwo\nthree\nfour\n");
    assertThat(landed.notLanded()).anySatisfy(line -> assertThat(line).startsWith("a.txt"));
    assertThat(landed.rescueTag()).isPresent();
  }

  @Test
  void aSaveBeforeTheTabsCommandIsWhatTheCommandEditedAndLandsAsItsBase() throws Exception {
    f.write("a.txt", "ONE\ntwo\nthree\nfour\n");
    assertThat(f.shell("sed -i 's/four/FOUR/' a.txt").isError()).isFalse();
    f.finish();

    var landed = f.tab.land();
    assertThat(landed.notLanded()).isEmpty();
    assertThat(f.read("a.txt")).isEqualTo("ONE\ntwo\nthree\nFOUR\n");
  }

  /**
   * Starts {@code command}, which writes {@code path} in the tab's view first and then sleeps, and
   * returns once the view holds its version: what the test does next happens while it runs.
   */
  private CompletableFuture<ToolResult> startedAndWrote(String command, String path) {
    var running = CompletableFuture.supplyAsync(() -> f.shell(command));
    Path inView = f.tab.viewDirectory().orElseThrow().resolve("upper").resolve(path);
    Eventually.until("the command wrote " + path + " in the view", () -> Files.exists(inView));
    return running;
  }
}
