package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --session}: the --approval given now wins over the mode the tab was saved in, and says so. */
class ExecFlagsWinTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp);
  final StringWriter err = waymark.err;

  @Test
  void anApprovalGivenNowWinsOverTheSavedOneOfTheTabGoneOn() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    waymark.script("{'responses':["
        + "{'whenLastUser':'look','text':'looked'},"
        + "{'whenLastUser':'write','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'written'}}]},"
        + "{'whenLastUser':'write','text':'done'}]}");
    String p = project.toString();
    assertThat(waymark.exec("-C", p, "--approval", "ask", "look")).isZero();
    Headless.Started started = waymark.started();

    assertThat(waymark.exec("-C", p, "--approval", "yolo", "--session", started.session(), "write"))
        .as(err.toString()).isZero();
    assertThat(project.resolve("a.txt")).hasContent("written");
    assertThat(err.toString()).contains("was in ask mode; it opens in yolo, as --approval says");
  }
}
