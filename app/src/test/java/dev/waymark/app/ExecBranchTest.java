package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --from N} where files changed since clash with {@code #N}: refused once, and --force goes ahead. */
class ExecBranchTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp);
  final StringWriter out = waymark.out;
  final StringWriter err = waymark.err;

  private int run(String... args) {
    return waymark.run(args);
  }

  @Test
  void aClashingBranchIsRefusedInOneLineAndForceOverwritesKeepingWhatItHeld() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path script = Files.writeString(temp.resolve("script.json"), ("{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one'}}]},"
        + "{'whenLastUser':'one','text':'ok'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'two'}}]},"
        + "{'whenLastUser':'two','text':'ok'},"
        + "{'whenLastUser':'other','text':'branched'},{'whenLastUser':'other','text':'branched'}]}").replace('\'', '"'));
    String p = project.toString();
    assertThat(run("exec", "-C", p, "--approval", "yolo", "--script", script.toString(), "one")).isZero();
    Matcher m = Pattern.compile("session (\\S+), tab (\\S+)").matcher(err.toString());
    assertThat(m.find()).isTrue();
    String session = m.group(1);
    assertThat(run("exec", "-C", p, "--approval", "yolo", "--script", script.toString(), "--session", session, "two")).isZero();
    Files.writeString(project.resolve("a.txt"), "mine");

    assertThat(run("exec", "-C", p, "--approval", "yolo", "--script", script.toString(), "--session", session, "--from", "1",
        "other")).isEqualTo(1);
    assertThat(err.toString()).startsWith("waymark: Could not branch from #1: Nothing restored").contains("a.txt")
        .hasLineCount(1);
    assertThat(project.resolve("a.txt")).hasContent("mine");

    assertThat(run("exec", "-C", p, "--approval", "yolo", "--script", script.toString(), "--session", session, "--force",
        "other")).isEqualTo(2);
    assertThat(err.toString()).contains("--force goes with --from");

    assertThat(run("exec", "-C", p, "--approval", "yolo", "--script", script.toString(), "--session", session, "--from", "1",
        "--force", "other")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("branched");
    assertThat(project.resolve("a.txt")).hasContent("one");
  }
}
