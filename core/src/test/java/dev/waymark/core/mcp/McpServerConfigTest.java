package dev.waymark.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpServerConfigTest {
  @Test
  void variablesAreTakenFromTheEnvironmentAndAnUnsetOneIsNamed() throws Exception {
    Map<String, String> env = Map.of("TOKEN", "abc", "USER_ID", "7");
    assertThat(McpServerConfig.expand("Bearer ${TOKEN}", env)).isEqualTo("Bearer abc");
    assertThat(McpServerConfig.expand("${USER_ID}:${TOKEN}!", env)).isEqualTo("7:abc!");
    assertThat(McpServerConfig.expand("no variable, a $ and a ${ unclosed", env)).isEqualTo("no variable, a $ and a ${ unclosed");
    assertThatThrownBy(() -> McpServerConfig.expand("Bearer ${MISSING}", env))
        .hasMessage("the environment variable MISSING it names is not set");
  }

  @Test
  void aListingShowsTheCommandLineOrTheUrlWithoutItsQuery() {
    assertThat(McpServerConfig.stdio("fs", "npx", List.of("-y", "server")).where()).isEqualTo("npx -y server");
    assertThat(McpServerConfig.http("h", "https://x.example/mcp?api_key=secret", Map.of()).where())
        .isEqualTo("https://x.example/mcp?…");
  }

  @Test
  void aServerNameCannotMakeOneServersRulesCoverAnothersTools() {
    // mcp__a would cover mcp__a__b__tool, a tool of server a__b
    assertThatThrownBy(() -> McpServerConfig.stdio("a__b", "x", List.of())).hasMessageContaining("__");
    assertThatThrownBy(() -> McpServerConfig.stdio("my server", "x", List.of())).hasMessageContaining("spaces");
    assertThat(McpServerConfig.stdio("git-hub.v2", "x", List.of()).name()).isEqualTo("git-hub.v2");
  }

  @Test
  void aServerIsEitherACommandOrAUrl() {
    assertThatThrownBy(() -> new McpServerConfig("both", "x", null, null, null, "http://h/mcp", null, null, null))
        .hasMessageContaining("either \"command\" (stdio) or \"url\"");
  }
}
