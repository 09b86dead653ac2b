package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --from N} where files changed since clash with {@code #N}: refused once, and --force goes ahead. */
class ExecBranchTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp);
  final StringWriter out = waymark.out;
  final StringWriter err = waymark.err;

  @Test
  void aClashingBranchIsRefusedInOneLineAndForceOverwritesKeepingWhatItHeld() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    waymark.script("{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one'}}]},"
        + "{'whenLastUser':'one','text':'ok'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'two'}}]},"
        + "{'whenLastUser':'two','text':'ok'},"
        + "{'whenLastUser':'other','text':'branched'},{'whenLastUser':'other','text':'branched'}]}");
    String p = project.toString();
    assertThat(waymark.exec("-C", p, "--approval", "yolo", "one")).isZero();
    Headless.Started started = waymark.started();
    String session = started.session();
    assertThat(waymark.exec("-C", p, "--approval", "yolo", "--session", session, "two")).isZero();
    Files.writeString(project.resolve("a.txt"), "mine");

    assertThat(waymark.exec("-C", p, "--approval", "yolo", "--session", session, "--from", "1",
        "other")).isEqualTo(1);
    assertThat(err.toString()).startsWith("waymark: Could not branch from #1: Nothing restored").contains("a.txt")
        .hasLineCount(1);
    assertThat(project.resolve("a.txt")).hasContent("mine");

    assertThat(waymark.exec("-C", p, "--approval", "yolo", "--session", session, "--force",
        "other")).isEqualTo(2);
    assertThat(err.toString()).contains("--force goes with --from");

    assertThat(waymark.exec("-C", p, "--approval", "yolo", "--session", session, "--from", "1",
        "--force", "other")).as(err.toString()).isZero();
    assertThat(out.toString()).contains("branched");
    assertThat(project.resolve("a.txt")).hasContent("one");
  }
}
