package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code waymark shell} without {@code --tab}: the session's tabs by title, one chosen by number on a terminal. */
@Timeout(60)
class ShellTabsTest {
  @TempDir Path temp;
  Path project;
  final Map<String, String> env = new HashMap<>();

  record Run(int exit, String out, String err) {}

  @BeforeEach
  void aSessionWithASubagentsTab() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    Path script = Files.writeString(temp.resolve("script.json"), ("{'responses':["
        + "{'whenLastUser':'PARENT','toolCalls':[{'name':'task','arguments':{'description':'write a','prompt':'Write a.txt'}}]},"
        + "{'whenLastUser':'Write a.txt','text':'nothing to write.'},"
        + "{'whenLastUser':'PARENT','text':'Done.'}]}").replace('\'', '"'));
    Run run = waymark("", false, "exec", "-C", project.toString(), "--approval", "auto-edit", "--script", script.toString(),
        "PARENT: delegate");
    assertThat(run.exit()).as(run.err()).isZero();
  }

  private Run waymark(String input, boolean terminal, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = Main.run(args, new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true),
        env, new Stdin(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), terminal));
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void withoutATerminalTheTabsAreListedByTitleWithHowToNameOne() {
    Run run = waymark("", false, "shell", "-C", project.toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("has 2 tabs:", "PARENT: delegate", "name one with --tab ID.");
  }

  @Test
  void onATerminalTheTabChosenByItsNumberIsOpened() {
    Run listed = waymark("", false, "shell", "-C", project.toString());
    Matcher second = Pattern.compile("^  2  (\\S+)  ", Pattern.MULTILINE).matcher(listed.err());
    assertThat(second.find()).as(listed.err()).isTrue();

    Run chosen = waymark("2\n", true, "shell", "-C", project.toString());

    assertThat(chosen.err()).contains("Which tab (number or id)?", "tab " + second.group(1) + " is not isolated");
    assertThat(chosen.exit()).isEqualTo(1);
    Run unknown = waymark("9\n", true, "shell", "-C", project.toString());
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("no tab \"9\" in the list");
  }
}
