package dev.waymark.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.testing.FakeModelServer;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** /model's list: what the server offers (#39 item 9). */
class ServerModelsTest {
  @Test
  void anOpenAiCompatibleServersModelsAreListedSortedWithTheKeySent() throws Exception {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(FakeModelServer.Reply.status(200,
          "{\"object\":\"list\",\"data\":[{\"id\":\"gpt-4o\",\"object\":\"model\"},{\"id\":\"gpt-4.1-mini\"},{\"x\":1}]}"));
      assertThat(ServerModels.list(Endpoint.openAi(server.url("/v1"), "sk-test"), false))
          .containsExactly("gpt-4.1-mini", "gpt-4o");
      assertThat(server.lastRequest().method()).isEqualTo("GET");
      assertThat(server.lastRequest().path()).isEqualTo("/v1/models");
      assertThat(server.lastRequest().header("authorization")).isEqualTo("Bearer sk-test");
    }
  }

  @Test
  void anthropicsModelsListIsAskedWithItsHeaders() throws Exception {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(FakeModelServer.Reply.status(200, "{\"data\":[{\"type\":\"model\",\"id\":\"claude-sonnet-4-5\"}]}"));
      Endpoint endpoint = new Endpoint(server.baseUrl(), "sk-ant", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL");
      assertThat(ServerModels.list(endpoint, true)).containsExactly("claude-sonnet-4-5");
      assertThat(server.lastRequest().path()).isEqualTo("/v1/models");
      assertThat(server.lastRequest().header("x-api-key")).isEqualTo("sk-ant");
      assertThat(server.lastRequest().header("anthropic-version")).isNotBlank();
    }
  }

  @Test
  void aServerThatCannotListSaysWhatItAnswered() throws Exception {
    try (FakeModelServer server = FakeModelServer.start()) {
      server.enqueue(FakeModelServer.Reply.status(404, "{\"error\":\"no such route\"}"));
      assertThatThrownBy(() -> ServerModels.list(Endpoint.openAi(server.url("/v1"), null), false))
          .isInstanceOf(IOException.class).hasMessageContaining("/v1/models answered HTTP 404");
      server.enqueue(FakeModelServer.Reply.status(200, "<html>a web page</html>"));
      assertThatThrownBy(() -> ServerModels.list(Endpoint.openAi(server.url("/v1"), null), false))
          .hasMessageContaining("did not answer with a model list");
    }
  }
}
