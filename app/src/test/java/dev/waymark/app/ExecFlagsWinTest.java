package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --session}: the --approval given now wins over the mode the tab was saved in, and says so. */
class ExecFlagsWinTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp);
  final StringWriter out = waymark.out;
  final StringWriter err = waymark.err;

  private int run(String... args) {
    return waymark.run(args);
  }

  @Test
  void anApprovalGivenNowWinsOverTheSavedOneOfTheTabGoneOn() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Path script = Files.writeString(temp.resolve("script.json"), ("{'responses':["
        + "{'whenLastUser':'look','text':'looked'},"
        + "{'whenLastUser':'write','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'written'}}]},"
        + "{'whenLastUser':'write','text':'done'}]}").replace('\'', '"'));
    String p = project.toString();
    assertThat(run("exec", "-C", p, "--approval", "ask", "--script", script.toString(), "look")).isZero();
    Matcher m = Pattern.compile("session (\\S+), tab (\\S+)").matcher(err.toString());
    assertThat(m.find()).isTrue();

    assertThat(run("exec", "-C", p, "--approval", "yolo", "--script", script.toString(), "--session", m.group(1), "write"))
        .as(err.toString()).isZero();
    assertThat(project.resolve("a.txt")).hasContent("written");
    assertThat(err.toString()).contains("was in ask mode; it opens in yolo, as --approval says");
  }
}
