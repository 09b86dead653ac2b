package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --isolated}, then {@code checkpoints diff}, {@code land} and {@code undo} of the isolated tab (#41). */
class ExecIsolatedTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp, Map.of("PATH", System.getenv("PATH")));
  final StringWriter out = waymark.out;
  final StringWriter err = waymark.err;

  private int run(String... args) {
    return waymark.run(args);
  }

  @Test
  void anIsolatedExecLeavesTheProjectAsItWasUntilItsTabLands() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "one\n");
    waymark.script("{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'tab\\n'}},"
        + "{'name':'run_shell','arguments':{'command':'cat b.txt > c.txt'}}]},{'text':'Done.'}]}");
    String p = project.toString();
    assertThat(waymark.exec("-C", p, "--isolated", "--approval", "auto", "make b"))
        .as(err.toString()).isZero();
    Headless.Started started = waymark.started();
    String session = started.session();
    String tab = started.tab();
    assertThat(project.resolve("b.txt")).doesNotExist();
    assertThat(project.resolve("c.txt")).doesNotExist();

    assertThat(run("checkpoints", "-C", p, "diff", "--session", session, "--tab", tab)).isZero();
    assertThat(out.toString()).contains("+++ b/b.txt", "+++ b/c.txt", "+tab");
    assertThat(run("checkpoints", "-C", p, "diff", "--json", "--session", session, "--tab", tab)).isZero();
    var json = new ObjectMapper().readTree(out.toString());
    assertThat(json.path("isolated").asBoolean()).as(out.toString()).isTrue();
    assertThat(json.path("files")).hasSize(2);
    assertThat(json.path("files").get(0).path("path").asText()).isEqualTo("b.txt");
    assertThat(json.path("files").get(0).path("added").asInt()).isEqualTo(1);
    assertThat(json.path("files").get(0).path("unified").asText()).contains("+tab");

    assertThat(run("checkpoints", "-C", p, "land", "--session", session, "--tab", tab)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Landed the view as #2");
    assertThat(project.resolve("b.txt")).hasContent("tab");
    assertThat(project.resolve("c.txt")).hasContent("tab");

    assertThat(run("checkpoints", "-C", p, "undo", "--session", session, "--tab", tab)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Restored #1: the land #2 is taken back out of the project (2 files deleted). "
        + "The tab is isolated again, its view as before the land (2 files).");
    assertThat(project.resolve("b.txt")).doesNotExist();
    assertThat(run("checkpoints", "-C", p, "diff", "--session", session, "--tab", tab)).isZero();
    assertThat(out.toString()).as("the view holds its work again").contains("+++ b/b.txt", "+++ b/c.txt");
    assertThat(run("checkpoints", "-C", p, "redo", "--session", session, "--tab", tab)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Restored #2: landed again (2 files written). The tab now works on the project itself.");
    assertThat(project.resolve("b.txt")).hasContent("tab");
    assertThat(run("checkpoints", "-C", p, "land", "--session", session, "--tab", tab)).isEqualTo(1);
    assertThat(err.toString()).contains("not isolated");
  }

  @Test
  void anIsolatedTabsDiffStatAndDiffOfItsLiveCheckpointAreWhatALandWouldChange() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    waymark.script("{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'tab\\ntwo\\n'}}]},{'text':'Done.'}]}");
    String p = project.toString();
    assertThat(waymark.exec("-C", p, "--isolated", "--approval", "auto", "make b")).as(err.toString()).isZero();
    String session = waymark.started().session();
    String tab = waymark.started().tab();

    assertThat(run("checkpoints", "-C", p, "diff", "--stat", "--session", session, "--tab", tab))
        .as(err.toString()).isZero();
    assertThat(out.toString()).isEqualTo(" b.txt | 2 ++\n 1 file changed, 2 insertions(+), 0 deletions(-)\n");
    assertThat(run("checkpoints", "-C", p, "diff", "--stat", "--json", "--session", session, "--tab", tab)).isZero();
    var json = new ObjectMapper().readTree(out.toString());
    assertThat(json.path("files").get(0).path("added").asInt()).isEqualTo(2);
    assertThat(json.path("files").get(0).has("unified")).as(out.toString()).isFalse();
    assertThat(run("checkpoints", "-C", p, "diff", "1", "--session", session, "--tab", tab)).as(err.toString()).isZero();
    assertThat(out.toString()).as("#1 is live: its files are the view's").contains("+++ b/b.txt", "+tab");
    assertThat(run("checkpoints", "-C", p, "diff", "1", "--stat", "--session", session, "--tab", tab)).isZero();
    assertThat(out.toString()).contains(" b.txt | 2 ++");
  }

  @Test
  void aLandCanKeepTheTabIsolated() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    waymark.script("{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'tab\\n'}}]},{'text':'Done.'}]}");
    String p = project.toString();
    assertThat(waymark.exec("-C", p, "--isolated", "--approval", "auto", "make b"))
        .as(err.toString()).isZero();
    Headless.Started started = waymark.started();
    String session = started.session();
    String tab = started.tab();

    assertThat(run("checkpoints", "-C", p, "land", "--keep-isolated", "--session", session, "--tab", tab))
        .as(err.toString()).isZero();
    assertThat(out.toString()).contains("Landed the view as #2: on the project, 1 file written. "
        + "The tab stays isolated, its view empty over the landed project.");
    assertThat(project.resolve("b.txt")).hasContent("tab");
    assertThat(run("checkpoints", "-C", p, "discard", "--session", session, "--tab", tab)).isEqualTo(1);
    assertThat(err.toString()).as("still isolated, its view empty").contains("nothing to discard");
    assertThat(run("checkpoints", "-C", p, "undo", "--keep-isolated", "--session", session, "--tab", tab)).isEqualTo(2);

    assertThat(run("checkpoints", "-C", p, "undo", "--session", session, "--tab", tab)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Restored #1: the land #2 is taken back out of the project (1 file deleted). "
        + "The tab is isolated again, its view as before the land (1 file).");
    assertThat(project.resolve("b.txt")).doesNotExist();
    assertThat(run("checkpoints", "-C", p, "diff", "--session", session, "--tab", tab)).isZero();
    assertThat(out.toString()).contains("+++ b/b.txt", "+tab").doesNotContain("special file");
  }

  @Test
  void anIsolatedExecIsRefusedWithASessionAndSaysWhy() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    waymark.script("{'responses':[{'text':'hi'}]}");
    assertThat(waymark.exec("-C", project.toString(), "--isolated", "--approval", "auto", "hi")).as(err.toString()).isZero();
    Headless.Started started = waymark.started();
    assertThat(waymark.exec("-C", project.toString(), "--isolated", "--session", started.session(), "hi")).as(err.toString()).isEqualTo(2);
    assertThat(err.toString()).contains("--isolated opens a new tab in a new session");
  }
}
