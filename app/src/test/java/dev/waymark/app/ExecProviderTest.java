package dev.waymark.app;

import static dev.waymark.core.testing.FakeModelServer.ANTHROPIC_STOP;
import static dev.waymark.core.testing.FakeModelServer.anthropicBlockStop;
import static dev.waymark.core.testing.FakeModelServer.anthropicJsonDelta;
import static dev.waymark.core.testing.FakeModelServer.anthropicMessageDelta;
import static dev.waymark.core.testing.FakeModelServer.anthropicMessageStart;
import static dev.waymark.core.testing.FakeModelServer.anthropicToolStart;
import static dev.waymark.core.testing.FakeModelServer.event;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.testing.FakeModelServer;
import dev.waymark.core.testing.FakeModelServer.Reply;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code waymark exec} in process against a fake provider: what its messages tell a user about the
 * provider, and what reaches the server. (The jar in its own process is {@link ExecEndToEndIT}.)
 */
@Timeout(60)
class ExecProviderTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  static final String CONTEXT_TOO_LONG = "{\"error\":{\"message\":\"This model's maximum context length is 128000 tokens. "
      + "However, your messages resulted in 130012 tokens. Please reduce the length of the messages.\","
      + "\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}";

  @TempDir Path temp;
  Path project;
  FakeModelServer server;
  final Map<String, String> env = new HashMap<>();

  record Run(int exit, String out, String err) {}

  @BeforeEach
  void setUp() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("a.txt"), "A\n");
    server = FakeModelServer.start();
    env.put("XDG_CONFIG_HOME", temp.resolve("config").toString());
    env.put("OPENAI_BASE_URL", server.url("/v1").toString());
    env.put("OPENAI_API_KEY", "sk-test");
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private Run exec(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    List<String> all = new ArrayList<>(List.of("exec", "-C", project.toString(), "--approval", "yolo"));
    all.addAll(List.of(args));
    int exit = Main.run(all.toArray(String[]::new), new WaymarkHome(temp.resolve("home")), new PrintWriter(out, true),
        new PrintWriter(err, true), env);
    return new Run(exit, out.toString(), err.toString());
  }

  private void settings(String json) throws Exception {
    Path file = Settings.userFile(env);
    Files.createDirectories(file.getParent());
    Files.writeString(file, json);
  }

  @Test
  void aConversationTooLongForTheModelIsAnsweredWithWhatExecCanDo() {
    // too long, and too long again when the conversation is sent to be compacted
    server.enqueue(FakeModelServer.openAiText("Hi."), Reply.status(400, CONTEXT_TOO_LONG), Reply.status(400, CONTEXT_TOO_LONG));
    Run first = exec("hello");
    assertThat(first.exit()).as(first.err()).isZero();
    Matcher session = Pattern.compile("session (\\S+), tab").matcher(first.err());
    assertThat(session.find()).as(first.err()).isTrue();

    Run run = exec("--session", session.group(1), "more");

    assertThat(run.exit()).as(run.err()).isEqualTo(1);
    assertThat(run.err().lines().toList()).as(run.err()).hasSize(3);
    assertThat(run.err().lines().toList().get(0)).contains("too long for the model", "compacts it");
    assertThat(run.err().lines().toList().get(1)).isEqualTo("waymark: The compaction failed, so your prompt was not sent: more");
    assertThat(run.err().lines().toList().get(2))
        .startsWith("waymark: ")
        .contains("too long", "maximum context length is 128000 tokens")
        .contains("waymark exec --session " + session.group(1) + " --from N")
        .contains("waymark checkpoints list --session " + session.group(1))
        .contains("waymark --resume " + session.group(1))
        .contains("leaving out --session")
        .doesNotContain("/checkpoint undo");
  }

  @Test
  void aRefusedKeyNamesTheVariableTheProviderReadsItFrom() throws Exception {
    settings("{\"provider\": \"proxy\", \"providers\": [{\"id\": \"proxy\", \"type\": \"openai\", \"baseUrl\": \""
        + server.url("/v1") + "\", \"apiKeyEnv\": \"PROXY_KEY\"}]}");
    env.put("PROXY_KEY", "sk-proxy");
    server.enqueue(Reply.status(401, "{\"error\":{\"message\":\"Incorrect API key provided\",\"type\":\"invalid_request_error\","
        + "\"code\":\"invalid_api_key\"}}"));

    Run run = exec("hello");

    assertThat(run.exit()).as(run.err()).isEqualTo(1);
    assertThat(run.err()).contains("check PROXY_KEY").doesNotContain("OPENAI_API_KEY").doesNotContain("sk-proxy");
  }

  @Test
  void withAThinkingBudgetClaudeThinksAndItsSignedThinkingGoesBackWithTheToolCall() throws Exception {
    settings("{\"providers\": [{\"id\": \"anthropic\", \"type\": \"anthropic\", \"thinkingBudget\": 3000}]}");
    env.put("ANTHROPIC_API_KEY", "sk-ant");
    env.put("ANTHROPIC_BASE_URL", server.baseUrl().toString());
    server.enqueue(
        Reply.sse(
            anthropicMessageStart(30),
            event("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":"
                + "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}"),
            event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                + "{\"type\":\"thinking_delta\",\"thinking\":\"Read a.txt.\"}}"),
            event("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                + "{\"type\":\"signature_delta\",\"signature\":\"RXFzaWc=\"}}"),
            anthropicBlockStop(0),
            anthropicToolStart(1, "toolu_01", "read_file"),
            anthropicJsonDelta(1, "{\"path\":\"a.txt\"}"),
            anthropicBlockStop(1),
            anthropicMessageDelta("tool_use", 40),
            ANTHROPIC_STOP),
        FakeModelServer.anthropicText("It says A."));

    Run run = exec("--provider", "anthropic", "what is in a.txt");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("It says A.\n");
    assertThat(run.out()).doesNotContain("Read a.txt."); // reasoning is not the answer
    for (FakeModelServer.Request r : server.requests()) {
      assertThat(r.json().get("thinking")).isEqualTo(JSON.readTree("{\"type\":\"enabled\",\"budget_tokens\":3000}"));
      assertThat(r.json().get("max_tokens").asInt()).isGreaterThan(3000);
    }
    JsonNode assistant = server.lastRequest().json().at("/messages/1/content");
    assertThat(assistant.get(0)).isEqualTo(JSON.readTree(
        "{\"type\":\"thinking\",\"thinking\":\"Read a.txt.\",\"signature\":\"RXFzaWc=\"}"));
    assertThat(assistant.get(1).get("type").asText()).isEqualTo("tool_use");
  }

  @Test
  void aBaseUrlWithoutV1EndsInOneLineThatSaysToAddIt() {
    env.put("OPENAI_BASE_URL", server.url("").toString());
    server.enqueue(Reply.status(404, "404 page not found"));

    Run run = exec("hello");

    assertThat(run.exit()).as(run.err()).isEqualTo(1);
    assertThat(run.err().lines().toList()).as(run.err()).hasSize(1);
    assertThat(run.err()).contains("404 page not found", "OPENAI_BASE_URL", server.url("/v1").toString())
        .doesNotContainPattern("\\w\\.\\w+Exception");
    assertThat(run.out()).isEmpty();
  }

  /** The smallest PNG: one transparent pixel. */
  private static final byte[] PNG = Base64.getDecoder().decode(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=");

  @Test
  void anImageNamedInThePromptIsSentAsAContentPartAndKeptInTheSession() throws Exception {
    Files.write(project.resolve("shot.png"), PNG);
    Path outside = Files.createDirectories(temp.resolve("Desktop dir"));
    Files.write(outside.resolve("drop.png"), PNG);
    server.enqueue(FakeModelServer.openAiText("Two pixels."));

    Run run = exec("--model", "gpt-4o", "compare @shot.png with '" + outside.resolve("drop.png") + "'");

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode content = server.lastRequest().json().at("/messages/1/content");
    assertThat(content.get(0).get("text").asText()).startsWith("compare @shot.png with").contains("--- @shot.png: an image");
    String url = "data:image/png;base64," + Base64.getEncoder().encodeToString(PNG);
    assertThat(content.get(1).at("/image_url/url").asText()).isEqualTo(url);
    assertThat(content.get(2).at("/image_url/url").asText()).isEqualTo(url);
    try (var sessions = Files.walk(temp.resolve("home"))) {
      Path session = sessions.filter(p -> p.getParent().getFileName().toString().equals("sessions")
          && p.toString().endsWith(".json")).findFirst().orElseThrow();
      assertThat(Files.readString(session)).contains("\"mediaType\" : \"image/png\"", "\"name\" : \"drop.png\"");
    }
  }

  @Test
  void aModelThatTakesNoImagesGetsThePromptWithoutThemAndTheUserIsToldWhy() throws Exception {
    Files.write(project.resolve("shot.png"), PNG);
    Files.writeString(project.resolve("fake.png"), "not an image");
    server.enqueue(FakeModelServer.openAiText("ok"));

    Run run = exec("--model", "deepseek-chat", "look at @shot.png and @fake.png");

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode content = server.lastRequest().json().at("/messages/1/content");
    assertThat(content.isTextual()).as("no image part").isTrue();
    assertThat(content.asText()).contains("[Not sent with this prompt: fake.png is not a PNG, JPEG, GIF or WebP image; "
        + "shot.png: deepseek-chat does not accept images");
    assertThat(run.err()).contains("Not sent with the prompt:", "deepseek-chat does not accept images");
  }
}
