package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.testing.GitCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code checkpoints diff A B} across branches, and {@code checkpoints export}, read back with the real git. */
@Tag("process") // runs the real git
class CheckpointsDiffExportTest {
  @TempDir Path temp;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  Path project;
  String session;

  private int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return Main.run(args, new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true),
        Map.of("XDG_CONFIG_HOME", temp.resolve("config").toString()));
  }

  private String p() {
    return project.toString();
  }

  /** #1 writes a.txt, #2 edits f.txt, then #3 branches from #1 and edits f.txt otherwise. */
  @BeforeEach
  void threeTurnsOnTwoBranches() throws Exception {
    GitCli.requireGit();
    project = Files.createDirectories(temp.resolve("project"));
    GitCli.ok(project, "init", "-q", "-b", "main");
    Files.writeString(project.resolve("f.txt"), "one\ntwo\nthree\n");
    GitCli.ok(project, "add", ".");
    GitCli.ok(project, "commit", "-q", "-m", "start");
    Path script = Files.writeString(temp.resolve("script.json"), ("{'responses':["
        + "{'whenLastUser':'make a','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'a\\n'}}]},"
        + "{'whenLastUser':'make a','text':'done'},"
        + "{'whenLastUser':'say 2','toolCalls':[{'name':'write_file','arguments':{'path':'f.txt','content':'one\\nTWO\\nthree\\n'}}]},"
        + "{'whenLastUser':'say 2','text':'done'},"
        + "{'whenLastUser':'say 3','toolCalls':[{'name':'write_file','arguments':{'path':'f.txt','content':'one\\ntwo\\nTHREE\\n'}}]},"
        + "{'whenLastUser':'say 3','text':'done'}]}").replace('\'', '"'));
    String s = script.toString();
    assertThat(run("exec", "-C", p(), "--approval", "yolo", "--script", s, "make a")).as(err.toString()).isZero();
    Matcher m = Pattern.compile("session (\\S+), tab (\\S+)").matcher(err.toString());
    assertThat(m.find()).isTrue();
    session = m.group(1);
    assertThat(run("exec", "-C", p(), "--approval", "yolo", "--script", s, "--session", session, "say 2")).isZero();
    assertThat(run("exec", "-C", p(), "--approval", "yolo", "--script", s, "--session", session, "--from", "1", "say 3"))
        .as(err.toString()).isZero();
  }

  @Test
  void twoBranchesAreDiffedAsUnifiedTextStatOrJsonAndTheOldDiffStays() throws Exception {
    assertThat(run("checkpoints", "-C", p(), "diff", "2", "3")).as(err.toString()).isZero();
    assertThat(out.toString()).isEqualTo("diff --waymark a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n"
        + "@@ -1,3 +1,3 @@\n one\n-TWO\n-three\n+two\n+THREE\n");
    assertThat(run("checkpoints", "-C", p(), "diff", "0", "live", "--stat")).isZero();
    assertThat(out.toString()).isEqualTo(" a.txt | 1 +\n f.txt | 2 +-\n 2 files changed, 2 insertions(+), 1 deletion(-)\n");
    assertThat(run("checkpoints", "-C", p(), "--json", "diff", "#0", "3", "--", "a.txt")).isZero();
    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertThat(json.path("from").asText()).isEqualTo("#0");
    assertThat(json.path("files")).hasSize(1);
    assertThat(json.path("files").get(0).path("change").asText()).isEqualTo("added");
    assertThat(json.path("files").get(0).path("hunks").get(0).asText()).isEqualTo("@@ -0,0 +1 @@\n+a\n");
    assertThat(run("checkpoints", "-C", p(), "diff", "3", "3")).isZero();
    assertThat(out.toString()).isEqualTo("#3 and #3 hold the same files.\n");

    assertThat(run("checkpoints", "-C", p(), "diff", "1")).as("the disk against one checkpoint, as before").isZero();
    assertThat(out.toString()).contains("-two\n-three\n+two\n+THREE\n".substring(0, 0)).contains("+++ b/f.txt");

    assertThat(run("checkpoints", "-C", p(), "diff", "2", "8")).isEqualTo(1);
    assertThat(err.toString()).contains("has no checkpoint #8.");
    assertThat(run("checkpoints", "-C", p(), "diff", "2", "nope:1")).isEqualTo(1);
    assertThat(err.toString()).contains("This session has no tab nope");
    assertThat(run("checkpoints", "-C", p(), "diff", "2", "3", "4")).isEqualTo(2);
    assertThat(run("checkpoints", "-C", p(), "diff", "2", "x y")).isEqualTo(2);
    assertThat(err.toString()).contains("Not a checkpoint: \"x y\"");
  }

  /** HEAD, the index file's bytes and the status: an export must leave them as they were. */
  private String untouched() throws Exception {
    return GitCli.ok(project, "rev-parse", "HEAD").text() + GitCli.ok(project, "symbolic-ref", "HEAD").text()
        + GitCli.ok(project, "status", "--porcelain").text()
        + HexFormat.of().formatHex(Files.readAllBytes(project.resolve(".git/index")));
  }

  @Test
  void exportWritesTheLivePathAsCommitsOnANewBranchOnly() throws Exception {
    String before = untouched();
    assertThat(run("checkpoints", "-C", p(), "export", "--branch", "waymark/attempt")).as(err.toString()).isZero();
    assertThat(out.toString()).startsWith("Wrote 2 commits to the branch waymark/attempt");
    assertThat(GitCli.ok(project, "log", "--format=%s", "waymark/attempt").lines())
        .containsExactly("say 3", "make a", "start");
    assertThat(GitCli.ok(project, "show", "waymark/attempt:f.txt").text()).isEqualTo("one\ntwo\nTHREE\n");
    assertThat(GitCli.ok(project, "show", "waymark/attempt~1:f.txt").text()).isEqualTo("one\ntwo\nthree\n");
    assertThat(GitCli.ok(project, "show", "waymark/attempt~1:a.txt").text()).isEqualTo("a\n");
    assertThat(untouched()).isEqualTo(before);

    assertThat(run("checkpoints", "-C", p(), "export", "--branch", "waymark/attempt")).isEqualTo(1);
    assertThat(err.toString()).contains("exists already").contains("--force");
    assertThat(run("checkpoints", "-C", p(), "export", "--branch", "waymark/attempt", "--force", "--squash", "0..2",
        "--json")).as(err.toString()).isZero();
    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertThat(json.path("commits")).hasSize(1);
    assertThat(json.path("replaced").asText()).isNotEmpty();
    assertThat(GitCli.ok(project, "log", "--format=%s", "waymark/attempt").lines())
        .containsExactly("Waymark: checkpoints #1..#2", "start"); // --squash 0..2 takes #1 and #2: A is where it starts, left out
    assertThat(GitCli.ok(project, "log", "-1", "--format=%b", "waymark/attempt").text()).contains("#1 make a", "#2 say 2");
    assertThat(GitCli.ok(project, "show", "waymark/attempt:f.txt").text()).isEqualTo("one\nTWO\nthree\n");
    assertThat(untouched()).isEqualTo(before);

    assertThat(run("checkpoints", "-C", p(), "export", "--branch", "x", "3..1")).isEqualTo(1);
    assertThat(err.toString()).contains("#3 is not on the way to #1");
    assertThat(run("checkpoints", "-C", p(), "export", "--branch", "x", "3")).isEqualTo(2);
  }
}
