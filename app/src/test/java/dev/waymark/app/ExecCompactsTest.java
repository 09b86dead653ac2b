package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code exec --session} compacts a conversation past the threshold as the interface does, with or without the server's count. */
class ExecCompactsTest {
  @TempDir Path temp;
  private final Headless waymark = new Headless(() -> temp);

  @Test
  void aSessionPastTheThresholdIsCompactedBeforeThePromptWhenTheServerCountsNothing() throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(temp.resolve("config/waymark/settings.json"),
        "{\"contextWindows\": {\"small\": 3000}, \"autoCompactPercent\": 60}");
    String p = project.toString();
    String long_ = "word ".repeat(2000); // about 2,500 tokens as estimated: past 60% of 3,000
    waymark.script("{'responses':[{'text':'ok'}]}"); // no usage: the server counts nothing
    assertThat(waymark.exec("-C", p, "--model", "small", "--approval", "yolo", long_)).as(waymark.err.toString()).isZero();
    String session = waymark.started().session();

    waymark.script("{'responses':[{'text':'the summary'},{'expectLastUser':'next','text':'answered'}]}");
    assertThat(waymark.exec("-C", p, "--model", "small", "--approval", "yolo", "--session", session, "next"))
        .as(waymark.err.toString()).isZero();
    assertThat(waymark.err.toString()).contains("% of the model's 3k-token window (compacting from 60%)");
    assertThat(waymark.out.toString()).contains("answered");
  }
}
