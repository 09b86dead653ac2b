package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.googlecode.lanterna.input.KeyType;
import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.context.FileIndex;
import dev.waymark.core.mcp.McpServerConfig;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.testing.TestMcpServer;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolContext;
import dev.waymark.core.tool.ToolSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An MCP server's prompts as {@code /SERVER:PROMPT} commands and its resources as {@code @SERVER:URI}
 * mentions, in the interface, against the tests' server (the SDK's own server classes, its own JVM).
 */
@Tag("process")
class McpInputUiTest {
  @TempDir Path temp;
  McpServers servers;

  @AfterEach
  void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private VirtualUi start(String script) throws Exception {
    return start(script, CustomCommands.NONE);
  }

  private VirtualUi start(String script, CustomCommands custom) throws Exception {
    Path project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("notes.md"), "my own notes\n");
    List<String> command = TestMcpServer.command("normal");
    servers = McpServers.start(List.of(McpServerConfig.stdio("t", command.get(0), command.subList(1, command.size()))
        .withTimeouts(Duration.ofSeconds(20), Duration.ofSeconds(30))),
        new McpServers.Options(project, Map.of(), Set.of(), ToolSettings.DEFAULTS));
    FileIndex files = new FileIndex(project);
    files.refreshNow();
    return new VirtualUi(temp, 110, 30, ApprovalMode.YOLO, script, servers, files, custom);
  }

  @Test
  void aServersPromptIsInTheMenuAndRunsWithItsArgumentsAndAMissingOneIsRefusedKeepingTheInput() throws Exception {
    try (VirtualUi ui = start("{'responses':[{'expectLastUser':'Say hello to Ada Lovelace in a warm way.','text':'Greeted.'}]}")) {
      ui.type("/t:g");
      String menu = ui.waitFor(s -> s.contains("/t:greet <name> [style]"), "the server's prompts in the / menu");
      assertThat(menu).contains("Greets someone (MCP server t)");
      ui.key(KeyType.Enter); // a prompt that needs an argument is completed, not run
      ui.waitFor(s -> ui.input().equals("› /t:greet"), "the command completed in the input");

      ui.key(KeyType.Escape); // the menu closes: Enter sends what is typed
      ui.key(KeyType.Enter);
      String refused = ui.waitFor("✗ /t:greet needs name (who is greeted)");
      assertThat(refused).contains("Usage: /t:greet <name> [style]", "was sent. The message is back in the input");
      assertThat(ui.input()).isEqualTo("› /t:greet");
      assertThat(refused).doesNotContain("#1");

      ui.type(" \"Ada Lovelace\" style=warm");
      ui.key(KeyType.Enter);
      String done = ui.waitFor(s -> s.contains("Greeted.") && s.contains("ready · #1"), "the prompt's turn");
      assertThat(done).contains("Say hello to Ada Lovelace in a warm way.");

      ui.send("/t:nope");
      assertThat(ui.waitFor("has no prompt nope")).contains("✗ MCP server t has no prompt nope; its prompts: ", "/t:greet");
      ui.ctrl('c');
      ui.send("/t:broken");
      assertThat(ui.waitFor("prompt broken")).contains("✗ MCP server t, prompt broken:", "the prompt is broken");
      assertThat(ui.input()).isEqualTo("› /t:broken");
    }
  }

  @Test
  void theFinderOffersResourcesAndOneMentionedIsAttachedWhileABrokenOneSendsNothing() throws Exception {
    try (VirtualUi ui = start("{'responses':[{'expectLastUser':'--- @t:test://notes/a.txt ---\\nthe notes of a\\n"
        + "--- end of @t:test://notes/a.txt ---\\n\\n--- @notes.md ---\\nmy own notes','text':'Both read.'}]}")) {
      servers.awaitStatus();
      ui.type("compare @notes");
      String finder = ui.waitFor(s -> s.contains("t:test://notes/a.txt"), "the resource in the @ finder");
      assertThat(finder).contains("notes.md", "@ files and MCP resources");
      ui.key(KeyType.ArrowDown);
      ui.key(KeyType.Enter);
      ui.waitFor(s -> ui.input().equals("› compare @t:test://notes/a.txt"), "the resource put in");
      ui.type("with @notes.md "); // the space closes the finder
      ui.key(KeyType.Enter);
      String done = ui.waitFor(s -> s.contains("Both read.") && s.contains("ready · #1"), "the turn");
      assertThat(done).contains("Attached @t:test://notes/a.txt (15 characters)",
          "compare @t:test://notes/a.txt with @notes.md").doesNotContain("the notes of a", "[Attached by", "end of @t:");
    assertThat(done.indexOf("Attached @t:")).as("said under the prompt it goes with, not above its checkpoint's header")
        .isGreaterThan(done.indexOf("compare @t:test://notes/a.txt with"));

      ui.send("and @t:test://gone.txt now");
      String refused = ui.waitFor("could not be attached");
      assertThat(refused).contains("✗ @t:test://gone.txt could not be attached: MCP server t, resource test://gone.txt:",
          "gone.txt is gone");
      assertThat(ui.input()).isEqualTo("› and @t:test://gone.txt now");
      assertThat(refused).contains("ready · #1");
    }
  }

  @Test
  void promptsAServerAddsWhileRunningJoinTheMenu() throws Exception {
    try (VirtualUi ui = start("{'responses':[]}")) {
      servers.awaitStatus();
      servers.tools().stream().filter(t -> t.name().equals("t__add_prompt_and_resource")).findFirst().orElseThrow()
          .run(new ObjectMapper().createObjectNode().put("text", "fresh"),
              new ToolContext(ui.project, null, new Cancellation()));
      ui.type("/t:fr");
      assertThat(ui.waitFor("/t:fresh")).contains("added while running (MCP server t)");
    }
  }

  @Test
  void aCustomCommandWhosePromptNamesAResourceAttachesIt() throws Exception {
    Path commands = Files.createDirectories(temp.resolve("config/commands"));
    Files.writeString(commands.resolve("summarise.md"), "Summarise @t:test://notes/a.txt for $ARGUMENTS.\n");
    try (VirtualUi ui = start("{'responses':[{'expectLastUser':'--- @t:test://notes/a.txt ---\\nthe notes of a',"
        + "'text':'Summarised.'}]}", CustomCommands.in(List.of(commands)))) {
      ui.send("/summarise the team");
      String done = ui.waitFor(s -> s.contains("Summarised.") && s.contains("ready · #1"), "the custom command's turn");
      assertThat(done).contains("Attached @t:test://notes/a.txt", "Summarise @t:test://notes/a.txt for the team.");
    }
  }

  @Test
  void aResourceAttachedToAMessageThatSteersARunningTurnIsSentButNotShown() throws Exception {
    try (VirtualUi ui = start("{'responses':[{'delayMs':1500,'toolCalls':[{'name':'list_files','arguments':{}}]},"
        + "{'expectLastUser':'--- @t:test://notes/a.txt ---\\nthe notes of a','text':'Steered.'}]}")) {
      servers.awaitStatus();
      ui.send("start");
      ui.waitFor(s -> s.contains("#1"), "the turn running");
      ui.send("also @t:test://notes/a.txt "); // the space closes the @ finder
      String done = ui.waitFor(s -> s.contains("Steered.") && s.contains("ready · #1"), "the steered turn");
      assertThat(done).contains("also @t:test://notes/a.txt", "· steering").doesNotContain("[Attached by", "end of @t:");
    }
  }
}
