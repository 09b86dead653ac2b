package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --session} of a session another Waymark holds says how to fork it, and {@code --fork} goes on in a copy (#39 item 9). */
class ExecForkTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp);
  final StringWriter out = waymark.out;
  final StringWriter err = waymark.err;

  private int run(String... args) {
    return waymark.run(args);
  }

  @Test
  void aSessionOpenInAnotherWaymarkIsRefusedSayingHowToForkAndForkGoesOnInACopyLeavingTheOriginal() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    waymark.script("{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one'}}]},"
        + "{'whenLastUser':'one','text':'ok'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'two'}}]},"
        + "{'whenLastUser':'two','text':'forked on'}]}");
    String p = project.toString();
    assertThat(waymark.exec("-C", p, "--approval", "yolo", "one")).as(err.toString()).isZero();
    Headless.Started started = waymark.started();
    String session = started.session();
    String tab = started.tab();

    WaymarkHome home = new WaymarkHome(temp.resolve("home"));
    try (ShadowStore held = ShadowStore.open(project, home, RetentionPolicy.DEFAULT)) {
      Workspace other = new Workspace(held, "scripted", (tree, memory) -> TabSession.of(tree, project,
          new ScriptedChatModel(ScriptedChatModel.parse("{\"responses\":[]}", "test")), Toolset.of(Tools.standard().all()),
          new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory));
      other.open(other.files().load(session)); // as another Waymark's interface holds it
      Path file = other.files().file(session);
      byte[] before = Files.readAllBytes(file);

      assertThat(waymark.exec("-C", p, "--approval", "yolo", "--session", session, "two"))
          .isEqualTo(1);
      assertThat(err.toString()).contains("Tab " + tab + " of session " + session + " is open in another Waymark (process "
          + ProcessHandle.current().pid() + ")", "`waymark exec --session " + session + " --fork`");
      assertThat(project.resolve("b.txt")).doesNotExist();

      assertThat(waymark.exec("-C", p, "--approval", "yolo", "--session", session, "--fork",
          "two")).as(err.toString()).isZero();
      assertThat(err.toString()).contains("session " + session + " forked as ");
      assertThat(out.toString()).contains("forked on");
      assertThat(project.resolve("b.txt")).hasContent("two");
      Matcher forked = Pattern.compile("session (\\S+), tab (\\S+)").matcher(err.toString());
      assertThat(forked.find()).isTrue();
      assertThat(forked.group(1)).isNotEqualTo(session);
      assertThat(forked.group(2)).isNotEqualTo(tab);
      SessionFile copy = other.files().load(forked.group(1));
      assertThat(copy.tabs().get(0).checkpoints()).extracting(SessionFile.Checkpoint::number).contains(1, 2);

      assertThat(Files.readAllBytes(file)).as("the original's file").isEqualTo(before);
      other.close();
    }
    assertThat(run("checkpoints", "list", "-C", p, "--session", session)).as(err.toString()).isZero();
    assertThat(out.toString()).as("the original keeps its one checkpoint").contains("#1").doesNotContain("#2");
  }
}
