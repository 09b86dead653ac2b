package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A Claude Code skill folder, unchanged, is offered to a real model over HTTP and loaded by the skill tool. */
@Timeout(60)
@Tag("process")
class ExecSkillsTest {
  @TempDir Path temp;
  Path project;
  FakeModelServer server;
  final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    Path home = temp.resolve("userhome");
    Path skill = Files.createDirectories(home.resolve(".claude/skills/changelog"));
    Files.writeString(skill.resolve("SKILL.md"), """
        ---
        name: changelog
        description: Write CHANGELOG entries in Keep a Changelog style. Use when the user asks for release notes.
        ---
        # Changelog
        Group entries under Added, Changed, Fixed.
        """);
    Files.writeString(skill.resolve("template.md"), "## [Unreleased]\n");
    server = FakeModelServer.start();
    env.put("HOME", home.toString());
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    env.put("OPENAI_BASE_URL", server.url("/v1").toString());
    env.put("OPENAI_API_KEY", "sk-test");
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  @Test
  void theSystemPromptListsTheSkillAndTheSkillToolLoadsItsInstructionsAndFiles() throws Exception {
    server.enqueue(Reply.sse(
            FakeModelServer.data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"),
            FakeModelServer.openAiToolChunk(0, "call_1", "skill", "{\"name\":\"changelog\"}"),
            FakeModelServer.openAiFinish("tool_calls"), FakeModelServer.OPENAI_DONE),
        FakeModelServer.openAiText("Done."));

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> args = new ArrayList<>(List.of("exec", "-C", project.toString(), "--approval", "plan", "write release notes"));
    int exit = Main.run(args.toArray(String[]::new), new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true),
        new PrintWriter(err, true), env);

    assertThat(exit).as(err.toString()).isZero();
    String first = server.requests().get(0).body();
    assertThat(first).contains("# Skills", "- changelog: Write CHANGELOG entries in Keep a Changelog style.")
        .contains("\"name\":\"skill\"", "\"name\":\"web_fetch\"")
        .as("no search backend configured: no web_search").doesNotContain("\"name\":\"web_search\"");
    String second = server.requests().get(1).body();
    assertThat(second).contains("Group entries under Added, Changed, Fixed.", "- template.md");
  }
}
