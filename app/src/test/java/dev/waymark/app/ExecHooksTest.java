package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A hooks block written for Claude Code, pasted unchanged into the user's settings, works in {@code exec} against a real model server. */
@Timeout(90)
@Tag("process")
class ExecHooksTest {
  /** As Claude Code's documentation writes them: jq reads the event, Bash and Write|Edit are its tool names. */
  static final String CLAUDE_CODE_HOOKS = """
      {
        "hooks": {
          "PreToolUse": [
            {
              "matcher": "Bash",
              "hooks": [
                {
                  "type": "command",
                  "command": "input=$(cat); [ \\"$(echo \\"$input\\" | jq -r .tool_name)\\" = Bash ] || exit 0; cmd=$(echo \\"$input\\" | jq -r '.tool_input.command'); if echo \\"$cmd\\" | grep -q 'rm -rf'; then echo 'Blocked: rm -rf is not allowed here' >&2; exit 2; fi"
                }
              ]
            }
          ],
          "PostToolUse": [
            {
              "matcher": "Write|Edit",
              "hooks": [
                {
                  "type": "command",
                  "command": "jq -r '.tool_input.file_path' | { read file_path; sed -i 's/[[:space:]]*$//' \\"$file_path\\"; }",
                  "timeout": 30
                }
              ]
            }
          ]
        }
      }
      """;

  @TempDir Path temp;
  Path project;
  FakeModelServer server;
  final Map<String, String> env = new HashMap<>();

  @BeforeEach
  void setUp() throws Exception {
    if (Stream.of("/usr/bin/jq", "/bin/jq", "/usr/local/bin/jq").noneMatch(p -> Files.isExecutable(Path.of(p)))) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail("no jq, which Claude Code's hook examples read the event with "
            + "(CI must install the package jq: see .ci/run)");
      }
      assumeTrue(false, "Claude Code's examples read the event with jq");
    }
    project = Files.createDirectories(temp.resolve("project"));
    server = FakeModelServer.start();
    env.put("HOME", temp.resolve("userhome").toString());
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    env.put("OPENAI_BASE_URL", server.url("/v1").toString());
    env.put("OPENAI_API_KEY", "sk-test");
  }

  @AfterEach
  void tearDown() {
    if (server != null) {
      server.close();
    }
  }

  private static Reply call(String id, String tool, String arguments) {
    return Reply.sse(
        FakeModelServer.data("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"),
        FakeModelServer.openAiToolChunk(0, id, tool, arguments),
        FakeModelServer.openAiFinish("tool_calls"), FakeModelServer.OPENAI_DONE);
  }

  private int exec(StringWriter out, StringWriter err, String... args) {
    return Main.run(args, new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true), new PrintWriter(err, true), env);
  }

  @Test
  void aClaudeCodeBashBlockerAndWriteFormatterWorkUnchanged() throws Exception {
    Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(temp.resolve("config/waymark/settings.json"), CLAUDE_CODE_HOOKS);
    server.enqueue(call("c1", "run_shell", "{\"command\":\"rm -rf src\"}"),
        call("c2", "write_file", "{\"path\":\"a.txt\",\"content\":\"trailing   \\nspaces\\t\\n\"}"),
        FakeModelServer.openAiText("Done."));
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/keep.txt"), "kept\n");

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = exec(out, err, "exec", "-C", project.toString(), "--approval", "yolo", "clean up");

    assertThat(exit).as(err.toString()).isZero();
    assertThat(project.resolve("src/keep.txt")).as("the blocked command did not run").hasContent("kept");
    assertThat(server.requests().get(1).body()).contains("Blocked: rm -rf is not allowed here");
    assertThat(project.resolve("a.txt")).as("the formatter ran after the write").hasContent("trailing\nspaces");

    StringWriter undoOut = new StringWriter();
    assertThat(exec(undoOut, new StringWriter(), "checkpoints", "-C", project.toString(), "undo")).isZero();
    assertThat(project.resolve("a.txt")).as("undo takes back the write and the formatter's edit").doesNotExist();
  }

  @Test
  void anUntrustedProjectsHooksDoNotRunAndTheWarningListsThem() throws Exception {
    Files.createDirectories(project.resolve(".waymark"));
    Files.writeString(project.resolve(".waymark/settings.json"), """
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch ran-by-the-project"}]}]}}
        """);
    server.enqueue(FakeModelServer.openAiText("Hi."));

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = exec(out, err, "exec", "-C", project.toString(), "hello");

    assertThat(exit).as(err.toString()).isZero();
    assertThat(project.resolve("ran-by-the-project")).doesNotExist();
    assertThat(err.toString()).contains("not trusted", "hooks (not run: UserPromptSubmit: touch ran-by-the-project)");
  }

  @Test
  void aPromptBlockedByAUserPromptSubmitHookExitsWith3AndLeavesNoSessionBehind() throws Exception {
    Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(temp.resolve("config/waymark/settings.json"), """
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
          "command": "if grep -q secret; then echo 'prompt holds a secret' >&2; exit 2; fi"}]}]}}
        """);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = exec(out, err, "exec", "-C", project.toString(), "my secret is 42");

    assertThat(exit).as(err.toString()).isEqualTo(3);
    assertThat(err.toString()).contains("prompt holds a secret", "not sent").doesNotContain("interrupted");
    assertThat(server.requests()).isEmpty();
    StringWriter listed = new StringWriter();
    assertThat(exec(listed, new StringWriter(), "sessions", "-C", project.toString())).isZero();
    assertThat(listed.toString()).as("no session for a prompt never sent").startsWith("No saved sessions");

    server.enqueue(FakeModelServer.openAiText("Hi."));
    assertThat(exec(new StringWriter(), new StringWriter(), "exec", "-C", project.toString(), "hello")).isZero();
    StringWriter again = new StringWriter();
    String session = Main.run(new String[] {"sessions", "-C", project.toString(), "--json"}, new WaymarkHome(temp.resolve("home")),
        new PrintWriter(again, true), new PrintWriter(new StringWriter(), true), env) == 0
        ? new ObjectMapper().readTree(again.toString()).get(0).get("id").asText() : null;
    StringWriter blockedErr = new StringWriter();
    assertThat(exec(new StringWriter(), blockedErr, "exec", "-C", project.toString(), "--session", session, "a secret"))
        .isEqualTo(3);
    StringWriter kept = new StringWriter();
    assertThat(exec(kept, new StringWriter(), "sessions", "-C", project.toString())).isZero();
    assertThat(kept.toString()).as("a session that was there stays").contains(session);
  }

  @Test
  void aStopHookIsToldTheSessionFileAsItsTranscript() throws Exception {
    Files.createDirectories(temp.resolve("config/waymark"));
    Files.writeString(temp.resolve("config/waymark/settings.json"), "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": "
        + "\"command\", \"command\": \"cat > " + temp.resolve("stop.json") + "\"}]}]}}");
    server.enqueue(FakeModelServer.openAiText("Hi."));
    StringWriter err = new StringWriter();
    assertThat(exec(new StringWriter(), err, "exec", "-C", project.toString(), "hello")).as(err.toString()).isZero();

    String transcript = new ObjectMapper().readTree(temp.resolve("stop.json").toFile())
        .get("transcript_path").asText();
    assertThat(transcript).endsWith(".json");
    assertThat(Path.of(transcript)).exists();
    assertThat(Files.readString(Path.of(transcript))).contains("hello");
  }
}
