package dev.waymark.core.subagent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The agents a {@code task} may name, as Claude Code defines them: Markdown files with front matter
 * ({@code name}, {@code description}, {@code tools}, {@code model}) whose body is the agent's instructions,
 * under the project's {@code .waymark/agents/} and {@code .claude/agents/} (only in a trusted project), then
 * the user's ({@code ~/.config/waymark/agents/}, {@code ~/.claude/agents/}); then the built-in {@code general}
 * and {@code explore}. The first of a name wins. A file that cannot be used is listed with why, never used.
 */
public final class AgentCatalog {
  public static final AgentCatalog BUILT_IN = new AgentCatalog(List.of(AgentDefinition.GENERAL, AgentDefinition.EXPLORE),
      List.of());
  private static final int MAX_BYTES = 256 * 1024;
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  /** Claude Code's names of the tools, and Waymark's for them. */
  private static final Map<String, String> CLAUDE_TOOLS = Map.of("read", "read_file", "write", "write_file", "edit",
      "edit_file", "multiedit", "edit_file", "glob", "list_files", "ls", "list_files", "grep", "grep", "bash", "run_shell",
      "webfetch", "web_fetch", "websearch", "web_search");
  /** Tools that change nothing of the project by themselves (a shell command then runs on the read-only project). */
  private static final Set<String> READING = Set.of("read_file", "list_files", "grep", "run_shell", "web_fetch",
      "web_search", "skill");
  /** Claude Code's model aliases: they name Anthropic models, so here they mean the parent's model. */
  private static final Set<String> INHERIT = Set.of("inherit", "sonnet", "opus", "haiku");

  /** A file under an agents directory that is not used, and why. */
  public record Refused(Path file, String why) {}

  private final List<AgentDefinition> agents;
  private final List<Refused> refused;

  private AgentCatalog(List<AgentDefinition> agents, List<Refused> refused) {
    this.agents = List.copyOf(agents);
    this.refused = List.copyOf(refused);
  }

  /** The agents under {@code project} ({@code empty} when it is not trusted), then the user's, then the built-in ones. */
  public static AgentCatalog of(Optional<Path> project, Path userConfigDirectory, Path home) {
    List<Path> directories = new ArrayList<>();
    project.ifPresent(root -> {
      directories.add(root.resolve(".waymark").resolve("agents"));
      directories.add(root.resolve(".claude").resolve("agents"));
    });
    directories.add(userConfigDirectory.resolve("agents"));
    directories.add(home.resolve(".claude").resolve("agents"));
    Map<String, AgentDefinition> byName = new LinkedHashMap<>();
    List<Refused> refused = new ArrayList<>();
    for (Path directory : directories) {
      for (Path file : files(directory)) {
        try {
          AgentDefinition agent = read(file);
          byName.putIfAbsent(agent.name(), agent);
        } catch (IOException | IllegalArgumentException e) {
          refused.add(new Refused(file, e.getMessage()));
        }
      }
    }
    BUILT_IN.agents.forEach(agent -> byName.putIfAbsent(agent.name(), agent));
    return new AgentCatalog(new ArrayList<>(byName.values()), refused);
  }

  public List<AgentDefinition> agents() {
    return agents;
  }

  public List<Refused> refused() {
    return refused;
  }

  /** What the parent's system prompt says of the agents. */
  public String promptSection() {
    return "\n\n# Subagents\nWith the task tool you can hand a self-contained task to a subagent, which works in a tab "
        + "of its own that the user can watch; several task calls in one answer run at once. The agents:\n"
        + agents.stream().map(a -> "- " + a.name() + ": " + a.description()).collect(Collectors.joining("\n"));
  }

  private static List<Path> files(Path directory) {
    List<Path> found = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return found;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, "*.md")) {
      entries.forEach(found::add);
    } catch (IOException e) {
      return found; // an unreadable directory gives no agents
    }
    found.sort(null);
    return found;
  }

  static AgentDefinition read(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file)) {
      throw new IOException("not a file");
    }
    if (Files.size(file) > MAX_BYTES) {
      throw new IllegalArgumentException("over " + MAX_BYTES + " bytes");
    }
    String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8).replace("\r\n", "\n");
    text = text.startsWith("\uFEFF") ? text.substring(1) : text;
    int end = text.startsWith("---\n") ? text.indexOf("\n---", 3) : -1;
    if (end < 0) {
      throw new IllegalArgumentException("no front matter (--- name: … description: … ---)");
    }
    JsonNode meta;
    try {
      meta = YAML.readTree(text.substring(4, end + 1));
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the front matter is not YAML: " + e.getOriginalMessage());
    }
    if (meta == null || !meta.isObject()) {
      throw new IllegalArgumentException("the front matter is not a mapping");
    }
    int after = text.indexOf('\n', end + 4);
    String body = after < 0 ? "" : text.substring(after + 1).strip();
    String stem = file.getFileName().toString().replaceFirst("\\.md$", "");
    String name = meta.path("name").asText(stem).strip();
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("the name \"" + name + "\" is not lowercase letters, digits and hyphens");
    }
    String description = meta.path("description").asText("").strip();
    if (description.isEmpty()) {
      throw new IllegalArgumentException("no description, which says when to use the agent");
    }
    List<String> tools = tools(meta.path("tools"));
    String model = meta.path("model").asText("").strip();
    Optional<String> chosen = model.isEmpty() || INHERIT.contains(model.toLowerCase(Locale.ROOT)) ? Optional.empty()
        : Optional.of(model);
    boolean readOnly = !tools.isEmpty() && READING.containsAll(tools);
    return new AgentDefinition(name, description, tools, chosen, body, readOnly);
  }

  /** A list, or Claude Code's comma-separated string; its tool names become Waymark's. */
  private static List<String> tools(JsonNode node) {
    List<String> names = new ArrayList<>();
    if (node.isArray()) {
      node.forEach(n -> names.add(n.asText()));
    } else if (node.isTextual()) {
      names.addAll(List.of(node.asText().split(",")));
    }
    return names.stream().map(String::strip).filter(n -> !n.isEmpty())
        .map(n -> CLAUDE_TOOLS.getOrDefault(n.toLowerCase(Locale.ROOT), n)).distinct().toList();
  }
}
