package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.GitCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /diff A B} and {@code /export} as a user drives them in a real terminal (tmux): two tabs,
 * the diff of one's checkpoint against the other's, a hunk taken into the project after a yes,
 * then the tab's path exported to a branch, read back with the real git.
 */
class TuiCompareIT {
  private static final String TWENTY = "1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n10\\n11\\n12\\n13\\n14\\n15\\n16\\n17\\n18\\n19\\n20\\n";

  @TempDir Path temp;
  Path home;
  Path project;
  Tmux tmux;

  @BeforeAll
  static void needsTmux() {
    assertThat(Tmux.available()).as("tmux is needed for these tests: apt-get install tmux (.ci/run installs it)").isTrue();
  }

  @BeforeEach
  void setUp() throws Exception {
    home = temp.resolve("home");
    project = Files.createDirectories(temp.resolve("project"));
    GitCli.ok(project, "init", "-q", "-b", "main");
    Files.writeString(project.resolve("f.txt"), TWENTY.replace("\\n", "\n"));
    GitCli.ok(project, "add", ".");
    GitCli.ok(project, "commit", "-q", "-m", "start");
    tmux = new Tmux();
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      if (tmux.alive()) {
        tmux.keys("C-d"); // quits on an empty input, over a panel too
        tmux.waitForExit(Duration.ofSeconds(20));
      }
    } finally {
      tmux.close();
    }
  }

  private void send(String text) throws Exception {
    tmux.type(text);
    tmux.keys("Enter");
  }

  @Test
  void aHunkOfAnotherTabsCheckpointIsTakenFromTheDiffViewThenThePathIsExported() throws Exception {
    String first = TWENTY.replace("1\\n2\\n", "1\\nTWO\\n").replace("18\\n", "EIGHTEEN\\n");
    String second = TWENTY.replace("4\\n5\\n", "4\\nFIVE\\n");
    Path script = Files.writeString(temp.resolve("script.json"), ("{'responses':["
        + "{'whenLastUser':'first','toolCalls':[{'name':'write_file','arguments':{'path':'f.txt','content':'" + first + "'}}]},"
        + "{'whenLastUser':'first','text':'First done.'},"
        + "{'whenLastUser':'second','toolCalls':[{'name':'write_file','arguments':{'path':'f.txt','content':'" + second
        + "'}}]},"
        + "{'whenLastUser':'second','text':'Second done.'}]}").replace('\'', '"'));
    tmux.start(140, 40, project, Map.of("WAYMARK_HOME", home.toString(), "HOME", temp.resolve("user").toString(),
        "XDG_CONFIG_HOME", temp.resolve("config").toString()),
        Waymark.command(List.of(), List.of("--script", script.toString(), "--approval", "yolo", project.toString())));
    tmux.waitFor("ready · #0");
    send("first");
    tmux.waitFor("First done\\.");
    tmux.keys("C-t");
    tmux.waitFor("ready · #0");
    send("second");
    tmux.waitFor("Second done\\.");
    tmux.keys("M-1");
    tmux.waitFor("First done\\.");

    send("/diff 2:1 live"); // the second tab's #1 against this tab's live #1
    tmux.waitFor("Diff tab 2 \\(second\\) #1 → #1 · 1 file"); // the other tab named as the bar shows it
    String view = tmux.waitFor("▌ @@ -1,8 \\+1,8 @@"); // 2 and 5 share a hunk
    assertThat(view).contains("-2", "+TWO", "-FIVE", "+5", "+EIGHTEEN");
    tmux.type("n");
    tmux.waitFor("▌ @@ -15,6 \\+15,6 @@");
    tmux.type("p");
    tmux.waitFor("▌ @@ -1,8 \\+1,8 @@");
    // this tab's first hunk (TWO, 5) onto the disk, which holds what the second tab wrote last: merged with it
    tmux.type("b");
    tmux.waitFor("Take hunk 1 of f.txt as #1 holds it .*\\[y/N\\]");
    tmux.type("y");
    tmux.keys("Escape");
    tmux.waitFor("Took hunk 1 of f.txt from #1 as #2"); // said once the file is written
    assertThat(Files.readString(project.resolve("f.txt"))).isEqualTo(TWENTY.replace("1\\n2\\n", "1\\nTWO\\n")
        .replace("\\n", "\n"));

    String status = GitCli.ok(project, "status", "--porcelain").text();
    send("/export agent/first");
    tmux.waitFor("Wrote 2 commits to the branch agent/first");
    assertThat(GitCli.ok(project, "log", "--format=%s", "agent/first").lines()).hasSize(3).first().asString()
        .startsWith("take hunk 1 of f.txt from #1");
    assertThat(GitCli.ok(project, "show", "agent/first:f.txt").text()).isEqualTo(Files.readString(project.resolve("f.txt")));
    assertThat(GitCli.ok(project, "show", "agent/first~1:f.txt").text()).contains("EIGHTEEN");
    assertThat(GitCli.ok(project, "status", "--porcelain").text()).isEqualTo(status);
    assertThat(GitCli.ok(project, "rev-parse", "--abbrev-ref", "HEAD").text().strip()).isEqualTo("main");
  }
}
