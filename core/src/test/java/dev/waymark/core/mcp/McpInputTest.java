package dev.waymark.core.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.context.Mentions;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.tool.ToolResult;
import dev.waymark.core.tool.ToolSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /SERVER:PROMPT} and {@code @SERVER:URI} in typed messages, against a server kept in memory. */
class McpInputTest {
  @TempDir Path project;
  McpServers servers;

  private static final McpPrompt GREET = new McpPrompt("docs", "greet", "Greets", List.of(
      new McpPrompt.Argument("name", "who is greeted", true), new McpPrompt.Argument("style", "", false),
      new McpPrompt.Argument("ending", "", false)));
  private static final McpPrompt PLAIN = new McpPrompt("docs", "plain", "", List.of());

  /** A server in memory: its prompt {@code greet} echoes its arguments; its resources are fixed texts and a blob. */
  private static final class Memory implements McpConnection {
    @Override
    public List<ToolInfo> tools() {
      return List.of();
    }

    @Override
    public ToolResult call(String tool, JsonNode arguments) {
      return ToolResult.ok("");
    }

    @Override
    public List<McpPrompt> prompts() {
      return List.of(GREET, PLAIN, new McpPrompt("docs", "dialogue", "", List.of()), new McpPrompt("docs", "fails", "", List.of()),
          new McpPrompt("docs", "huge", "", List.of()));
    }

    @Override
    public List<McpResource> resources() {
      return List.of(new McpResource("docs", "docs://a.md", "a.md", "text/markdown", 12),
          new McpResource("docs", "docs://big", "big", "text/plain", -1));
    }

    @Override
    public List<PromptMessage> prompt(String name, Map<String, String> arguments) throws McpFailure {
      return switch (name) {
        case "greet" -> List.of(new PromptMessage("user", "greet " + new TreeMap<>(arguments)));
        case "plain" -> List.of(new PromptMessage("user", "plain prompt"));
        case "dialogue" -> List.of(new PromptMessage("user", "2+2?"), new PromptMessage("assistant", "4"));
        case "huge" -> List.of(new PromptMessage("user", "z".repeat(Mentions.MAX_TOTAL_CHARS + 5)));
        default -> throw new McpFailure(ErrorKind.TOOL_FAILED, "the server answered with an error: it broke (JSON-RPC error -32603)");
      };
    }

    @Override
    public List<ResourceContent> read(String uri) throws McpFailure {
      return switch (uri) {
        case "docs://a.md" -> List.of(new ResourceContent(uri, "text/markdown", "# A\nsee @src/Main.java\n", 0));
        case "docs://big" -> List.of(new ResourceContent(uri, "text/plain", "y".repeat(Mentions.MAX_FILE_CHARS + 10), 0));
        case "docs://logo.png" -> List.of(new ResourceContent(uri, "image/png", null, 2048));
        default -> throw new McpFailure(ErrorKind.TOOL_FAILED, "the server answered with an error: Resource not found: " + uri
            + " (JSON-RPC error -32002)");
      };
    }

    @Override
    public void onListsChanged(Runnable listener) {}

    @Override
    public CompletableFuture<?> exited() {
      return new CompletableFuture<>();
    }

    @Override
    public void close() {}
  }

  private McpInput input(McpConnection.Factory factory) throws Exception {
    servers = McpServers.start(List.of(McpServerConfig.stdio("docs", "unused", List.of())),
        new McpServers.Options(project, Map.of(), Set.of(), ToolSettings.DEFAULTS), factory);
    servers.awaitStarted("docs", Duration.ofSeconds(5));
    return new McpInput(servers);
  }

  private McpInput input() throws Exception {
    return input((config, environment, mark) -> new Memory());
  }

  @AfterEach
  void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private static McpInput.Expansion.Ready ready(McpInput.Expansion expansion) {
    assertThat(expansion).isInstanceOf(McpInput.Expansion.Ready.class);
    return (McpInput.Expansion.Ready) expansion;
  }

  private static String refused(McpInput.Expansion expansion) {
    assertThat(expansion).isInstanceOf(McpInput.Expansion.Refused.class);
    return ((McpInput.Expansion.Refused) expansion).message();
  }

  @Test
  void argumentsArePositionalInOrderOrNamedAndTheLastTakesWhatIsLeft() {
    assertThat(McpInput.arguments(GREET, "Ada")).isEqualTo(Map.of("name", "Ada"));
    assertThat(McpInput.arguments(GREET, "Ada warm")).isEqualTo(Map.of("name", "Ada", "style", "warm"));
    assertThat(McpInput.arguments(GREET, "style=warm Ada")).isEqualTo(Map.of("name", "Ada", "style", "warm"));
    assertThat(McpInput.arguments(GREET, "\"Ada Lovelace\" warm see you soon"))
        .isEqualTo(Map.of("name", "Ada Lovelace", "style", "warm", "ending", "see you soon"));
    assertThat(McpInput.arguments(GREET, "ending='bye now' name=Bo"))
        .isEqualTo(Map.of("name", "Bo", "ending", "bye now"));
    assertThat(McpInput.arguments(GREET, "a=b")).isEqualTo(Map.of("name", "a=b")); // not an argument's name: a word
    assertThat(McpInput.arguments(PLAIN, "  ")).isEmpty();
  }

  @Test
  void aMissingRequiredArgumentOrAWordTooManyIsRefusedWithTheUsage() {
    assertThatThrownBy(() -> McpInput.arguments(GREET, "style=warm"))
        .hasMessage("/docs:greet needs name (who is greeted). Usage: /docs:greet <name> [style] [ending] "
            + "(in order, or NAME=VALUE). Nothing was sent.");
    assertThatThrownBy(() -> McpInput.arguments(PLAIN, "extra words"))
        .hasMessage("/docs:plain takes no arguments. Usage: /docs:plain");
  }

  @Test
  void aPromptCommandBecomesThePromptsMessages() throws Exception {
    McpInput input = input();
    assertThat(input.concerns("/docs:greet Ada")).isTrue();
    assertThat(input.concerns("/other:greet Ada")).isFalse(); // not a configured server: an unknown command as before
    assertThat(ready(input.expand("/docs:greet Ada warm")).text()).isEqualTo("greet {name=Ada, style=warm}");
    assertThat(ready(input.expand("/docs:dialogue")).text()).isEqualTo("[user]\n2+2?\n\n[assistant]\n4");
    assertThat(refused(input.expand("/docs:greet"))).startsWith("/docs:greet needs name");
    assertThat(refused(input.expand("/docs:nope"))).isEqualTo("MCP server docs has no prompt nope; its prompts: "
        + "/docs:greet, /docs:plain, /docs:dialogue, /docs:fails, /docs:huge.");
    assertThat(refused(input.expand("/docs:fails"))).isEqualTo("MCP server docs, prompt fails: the server answered with "
        + "an error: it broke (JSON-RPC error -32603). Nothing was sent.");
  }

  @Test
  void aResourceMentionAttachesItsTextAfterTheMessageAndFileMentionsInItAreNotFollowed() throws Exception {
    Files.createDirectories(project.resolve("src"));
    Files.writeString(project.resolve("src/Main.java"), "class Main {}\n");
    Files.writeString(project.resolve("notes.txt"), "my notes\n");
    McpInput input = input();
    assertThat(input.concerns("read @docs:docs://a.md")).isTrue();
    assertThat(input.concerns("mail me@example.com or @notes.txt")).isFalse();
    McpInput.Expansion.Ready ready = ready(input.expand("read @docs:docs://a.md, and @notes.txt"));
    assertThat(ready.text()).isEqualTo("read @docs:docs://a.md, and @notes.txt" + Mentions.ATTACHED
        + "\n\n--- @docs:docs://a.md ---\n# A\nsee @src/Main.java\n--- end of @docs:docs://a.md ---");
    assertThat(ready.notes()).containsExactly("Attached @docs:docs://a.md (23 characters)");

    // then the tab attaches the files the typed part names, after the resource and under the same heading
    String sent = Mentions.expand(project, ready.text());
    assertThat(sent).startsWith(ready.text() + "\n\n--- @notes.txt ---\nmy notes\n");
    assertThat(sent).doesNotContain("class Main");
    assertThat(sent.split(Pattern.quote(Mentions.ATTACHED), -1)).hasSize(2);
    assertThat(Mentions.typed(sent)).isEqualTo("read @docs:docs://a.md, and @notes.txt");
  }

  @Test
  void aLargeResourceIsCutWithANoteAndABlobIsNamedNotAttached() throws Exception {
    McpInput input = input();
    String big = ready(input.expand("@docs:docs://big")).text();
    assertThat(big).contains("y".repeat(Mentions.MAX_FILE_CHARS) + "\n[cut: only the first " + Mentions.MAX_FILE_CHARS
        + " characters of " + (Mentions.MAX_FILE_CHARS + 10) + " are attached]\n--- end of @docs:docs://big ---");
    assertThat(big).doesNotContain("y".repeat(Mentions.MAX_FILE_CHARS + 1));
    McpInput.Expansion.Ready blob = ready(input.expand("look at @docs:docs://logo.png"));
    assertThat(blob.text()).endsWith(Mentions.ATTACHED + "\n\n--- @docs:docs://logo.png: binary content (image/png, "
        + "2048 bytes), not attached ---");
    assertThat(blob.notes()).containsExactly("Attached @docs:docs://logo.png (binary: named, not attached)");
  }

  @Test
  void anUnknownResourceOrADeadServerRefusesTheWholeMessage() throws Exception {
    McpInput input = input();
    assertThat(refused(input.expand("@docs:docs://a.md and @docs:docs://missing"))).isEqualTo(
        "@docs:docs://missing could not be attached: MCP server docs, resource docs://missing: the server answered with "
            + "an error: Resource not found: docs://missing (JSON-RPC error -32002) (it lists @docs:docs://a.md, "
            + "@docs:docs://big). Nothing was sent.");
    servers.close();

    McpInput dead = input((config, environment, mark) -> {
      throw new McpFailure(ErrorKind.REFUSED, "its command \"unused\" is not on the PATH");
    });
    assertThat(refused(dead.expand("@docs:docs://a.md"))).isEqualTo("@docs:docs://a.md could not be attached: MCP server "
        + "docs is not running: MCP server docs did not start: its command \"unused\" is not on the PATH. Nothing was sent.");
    assertThat(refused(dead.expand("/docs:greet Ada"))).isEqualTo("MCP server docs is not running: MCP server docs did not "
        + "start: its command \"unused\" is not on the PATH. Nothing was sent (/mcp or `waymark mcp list` shows the servers).");
  }

  @Test
  void aHugePromptIsCutWithANoteAndACommandLineLeavesItsResourcesToTheCommand() throws Exception {
    McpInput input = input();
    McpInput.Expansion.Ready huge = ready(input.expand("/docs:huge"));
    assertThat(huge.text()).hasSize(Mentions.MAX_TOTAL_CHARS + ("\n[cut: the prompt's messages are "
        + (Mentions.MAX_TOTAL_CHARS + 5) + " characters; only the first " + Mentions.MAX_TOTAL_CHARS + " are sent]").length());
    assertThat(huge.notes()).containsExactly("MCP server docs's prompt huge was cut to " + Mentions.MAX_TOTAL_CHARS + " characters");
    // a custom command's own line: its prompt, once made, is what attaches the resource
    assertThat(input.concerns("/review @docs:docs://a.md")).isFalse();
    assertThat(input.expand("/review @docs:docs://a.md")).isInstanceOf(McpInput.Expansion.Unchanged.class);
  }

  @Test
  void anUnknownPromptIsAnsweredWithoutWaitingForAnotherServerStillStarting() throws Exception {
    CountDownLatch released = new CountDownLatch(1);
    servers = McpServers.start(List.of(McpServerConfig.stdio("docs", "unused", List.of()),
        McpServerConfig.stdio("slow", "unused", List.of()).withTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(30))),
        new McpServers.Options(project, Map.of(), Set.of(), ToolSettings.DEFAULTS), (config, environment, mark) -> {
          if (config.name().equals("slow")) {
            try {
              released.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            throw new McpFailure(ErrorKind.TOOL_FAILED, "released");
          }
          return new Memory();
        });
    try {
      servers.awaitStarted("docs", Duration.ofSeconds(5));
      long started = System.nanoTime();
      assertThat(refused(new McpInput(servers).expand("/docs:nope"))).startsWith("MCP server docs has no prompt nope");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    } finally {
      released.countDown();
    }
  }
}
