package dev.waymark.core.mcp;

import dev.waymark.core.context.Mentions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a typed message becomes when it uses an MCP server: {@code /SERVER:PROMPT [arguments]} the
 * prompt's messages, got from the server; {@code @SERVER:URI} in a message the resource's text,
 * attached after the message as {@code @path} attaches a file. Anything that goes wrong (a server
 * down, a prompt or resource it does not have, an argument missing, an error) refuses the whole
 * message with one clear sentence, so that nothing half-made is sent.
 */
public final class McpInput {
  private static final Pattern PROMPT = Pattern.compile("/([A-Za-z0-9_-]+):(\\S+)(?:\\s+(.*))?", Pattern.DOTALL);
  // as a file mention: "@" at the start or after a space or an opening bracket
  private static final Pattern RESOURCE = Pattern.compile("(?<=^|[\\s(\\[{\"'])@([A-Za-z0-9_-]+):(\\S+)");
  private static final String TRAILING_PUNCTUATION = ".,;:!?)]}\"'";

  private final McpServers servers;

  public McpInput(McpServers servers) {
    this.servers = servers;
  }

  /** What {@link #expand} made of a message. */
  public sealed interface Expansion {
    /** It uses no MCP server: send it as it is. */
    record Unchanged() implements Expansion {}

    /** Send {@code text}; {@code notes} say what was attached. */
    record Ready(String text, List<String> notes) implements Expansion {
      public Ready {
        notes = List.copyOf(notes);
      }
    }

    /** Send nothing; {@code message} says why. */
    record Refused(String message) implements Expansion {}
  }

  /** Whether {@code text} runs a configured server's prompt or mentions one of its resources (no server is asked). */
  public boolean concerns(String text) {
    return promptCommand(text).isPresent() || !command(text) && !mentions(text).isEmpty();
  }

  /** A line for the interface's own commands: a resource it names is for the command (a custom one sends it on). */
  private static boolean command(String text) {
    String stripped = text.strip();
    return stripped.startsWith("/") && !stripped.startsWith("//");
  }

  /**
   * The message {@code text} stands for. Blocks while the servers answer (each at most its call
   * timeout); a server still starting is waited for.
   */
  public Expansion expand(String text) {
    Optional<Matcher> command = promptCommand(text);
    if (command.isPresent()) {
      return prompt(command.get());
    }
    List<Mention> mentions = command(text) ? List.of() : mentions(text);
    return mentions.isEmpty() ? new Expansion.Unchanged() : attach(text, mentions);
  }

  private Optional<Matcher> promptCommand(String text) {
    Matcher m = PROMPT.matcher(text.strip());
    return m.matches() && servers.has(m.group(1)) ? Optional.of(m) : Optional.empty();
  }

  private Expansion prompt(Matcher command) {
    String server = command.group(1);
    String name = command.group(2);
    Optional<McpPrompt> found = find(server, name);
    if (found.isEmpty()) {
      servers.awaitStart(server); // a server still starting has listed nothing yet
      found = find(server, name);
    }
    if (found.isEmpty()) {
      return new Expansion.Refused(unknownPrompt(server, name));
    }
    McpPrompt prompt = found.get();
    Map<String, String> arguments;
    try {
      arguments = arguments(prompt, command.group(3) == null ? "" : command.group(3));
    } catch (IllegalArgumentException e) {
      return new Expansion.Refused(e.getMessage());
    }
    List<McpConnection.PromptMessage> messages;
    try {
      messages = servers.prompt(server, name, arguments);
    } catch (McpFailure e) {
      return new Expansion.Refused(e.getMessage() + ". Nothing was sent.");
    }
    if (messages.isEmpty() || messages.stream().allMatch(m -> m.text().isBlank())) {
      return new Expansion.Refused("MCP server " + server + "'s prompt " + name + " came back empty. Nothing was sent.");
    }
    boolean onlyUser = messages.stream().allMatch(m -> m.role().equals("user"));
    List<String> parts = new ArrayList<>();
    for (McpConnection.PromptMessage message : messages) {
      // a prompt may hold an example exchange: said as such, since it all goes as the user's turn
      parts.add(onlyUser ? message.text() : "[" + message.role() + "]\n" + message.text());
    }
    String text = String.join("\n\n", parts);
    if (text.length() > Mentions.MAX_TOTAL_CHARS) { // a server's prompt is no way round the limit a mention has
      return new Expansion.Ready(text.substring(0, Mentions.MAX_TOTAL_CHARS) + "\n[cut: the prompt's messages are "
          + text.length() + " characters; only the first " + Mentions.MAX_TOTAL_CHARS + " are sent]",
          List.of("MCP server " + server + "'s prompt " + name + " was cut to " + Mentions.MAX_TOTAL_CHARS + " characters"));
    }
    return new Expansion.Ready(text, List.of());
  }

  private Optional<McpPrompt> find(String server, String name) {
    return servers.prompts().stream().filter(p -> p.server().equals(server) && p.name().equals(name)).findFirst();
  }

  private String unknownPrompt(String server, String name) {
    Optional<McpServers.Status> status = servers.status().stream().filter(s -> s.name().equals(server)).findFirst();
    if (status.isPresent() && status.get().state() != McpServers.State.READY) {
      return "MCP server " + server + " is not running" + status.get().lastError().map(e -> ": " + e).orElse("")
          + ". Nothing was sent (/mcp or `waymark mcp list` shows the servers).";
    }
    List<String> names = servers.prompts().stream().filter(p -> p.server().equals(server)).map(McpPrompt::command).toList();
    return "MCP server " + server + " has no prompt " + name + "; "
        + (names.isEmpty() ? "it offers none." : "its prompts: " + String.join(", ", names) + ".");
  }

  /**
   * The prompt's arguments from what was typed after its name: {@code NAME=VALUE} words for the
   * arguments so named, the other words for the rest in the order the server declares them (the
   * last one takes what is left over); quotes keep spaces in a word.
   *
   * @throws IllegalArgumentException naming the required arguments not given, or words it takes no argument for
   */
  static Map<String, String> arguments(McpPrompt prompt, String typed) {
    Map<String, String> named = new LinkedHashMap<>();
    List<String> positional = new ArrayList<>();
    Set<String> declared = new LinkedHashSet<>();
    prompt.arguments().forEach(a -> declared.add(a.name()));
    for (String word : words(typed)) {
      int equals = word.indexOf('=');
      if (equals > 0 && declared.contains(word.substring(0, equals))) {
        named.put(word.substring(0, equals), word.substring(equals + 1));
      } else {
        positional.add(word);
      }
    }
    List<String> free = prompt.arguments().stream().map(McpPrompt.Argument::name).filter(n -> !named.containsKey(n)).toList();
    if (!positional.isEmpty() && free.isEmpty()) {
      throw new IllegalArgumentException(prompt.command() + (declared.isEmpty() ? " takes no arguments" : " has no argument left for \""
          + String.join(" ", positional) + "\"") + ". Usage: " + prompt.usage());
    }
    Map<String, String> arguments = new LinkedHashMap<>(named);
    for (int i = 0; i < positional.size(); i++) {
      if (i < free.size() - 1) {
        arguments.put(free.get(i), positional.get(i));
      } else {
        arguments.put(free.get(free.size() - 1), String.join(" ", positional.subList(i, positional.size())));
        break;
      }
    }
    List<McpPrompt.Argument> missing = prompt.arguments().stream()
        .filter(a -> a.required() && (!arguments.containsKey(a.name()) || arguments.get(a.name()).isEmpty())).toList();
    if (!missing.isEmpty()) {
      List<String> said = missing.stream().map(a -> a.name() + (a.description().isBlank() ? "" : " (" + a.description() + ")"))
          .toList();
      throw new IllegalArgumentException(prompt.command() + " needs " + String.join(", ", said) + ". Usage: " + prompt.usage()
          + " (in order, or NAME=VALUE). Nothing was sent.");
    }
    return arguments;
  }

  /** Words split at spaces; a word in double or single quotes keeps its spaces. */
  static List<String> words(String typed) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    boolean any = false;
    for (char c : typed.strip().toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
        any = true;
      } else if (Character.isWhitespace(c)) {
        if (any || word.length() > 0) {
          words.add(word.toString());
        }
        word.setLength(0);
        any = false;
      } else {
        word.append(c);
      }
    }
    if (any || word.length() > 0) {
      words.add(word.toString());
    }
    return words;
  }

  /** One {@code @SERVER:URI} of a message. */
  private record Mention(String server, String uri) {
    String label() {
      return "@" + server + ":" + uri;
    }
  }

  private List<Mention> mentions(String text) {
    Set<Mention> found = new LinkedHashSet<>();
    Matcher m = RESOURCE.matcher(Mentions.typed(text));
    while (m.find()) {
      if (!servers.has(m.group(1))) {
        continue; // an e-mail address or a word with a colon: left as it is
      }
      String uri = m.group(2);
      // a sentence's punctuation is not part of the URI, unless the server lists it so
      while (uri.length() > 1 && TRAILING_PUNCTUATION.indexOf(uri.charAt(uri.length() - 1)) >= 0 && !listed(m.group(1), uri)) {
        uri = uri.substring(0, uri.length() - 1);
      }
      found.add(new Mention(m.group(1), uri));
    }
    return List.copyOf(found);
  }

  private boolean listed(String server, String uri) {
    return servers.resources().stream().anyMatch(r -> r.server().equals(server) && r.uri().equals(uri));
  }

  private Expansion attach(String text, List<Mention> mentions) {
    StringBuilder attached = new StringBuilder();
    List<String> notes = new ArrayList<>();
    for (Mention mention : mentions) {
      List<McpConnection.ResourceContent> contents;
      try {
        contents = servers.read(mention.server(), mention.uri());
      } catch (McpFailure e) {
        String hint = listed(mention.server(), mention.uri()) ? "" : hint(mention.server());
        return new Expansion.Refused(mention.label() + " could not be attached: " + e.getMessage() + hint
            + ". Nothing was sent.");
      }
      if (contents.isEmpty()) {
        return new Expansion.Refused(mention.label() + " could not be attached: the server sent no content for it"
            + hint(mention.server()) + ". Nothing was sent.");
      }
      boolean cut = false;
      for (McpConnection.ResourceContent part : contents) {
        int room = Mentions.MAX_TOTAL_CHARS - attached.length();
        cut |= part.text() != null && part.text().length() > Math.min(Mentions.MAX_FILE_CHARS, room);
        attached.append("\n\n").append(block(mention, part, room));
      }
      boolean binary = contents.stream().allMatch(c -> c.text() == null);
      long characters = contents.stream().filter(c -> c.text() != null).mapToLong(c -> c.text().length()).sum();
      notes.add("Attached " + mention.label() + (binary ? " (binary: named, not attached)"
          : " (" + characters + " characters" + (cut ? ", cut" : "") + ")"));
    }
    String sent = text.contains(Mentions.ATTACHED) ? text + attached : text + Mentions.ATTACHED + attached;
    return new Expansion.Ready(sent, notes);
  }

  private String hint(String server) {
    List<String> listed = servers.resources().stream().filter(r -> r.server().equals(server)).map(r -> "@" + r.mention())
        .limit(3).toList();
    return listed.isEmpty() ? "" : " (it lists " + String.join(", ", listed)
        + (servers.resources().stream().filter(r -> r.server().equals(server)).count() > 3 ? ", …" : "") + ")";
  }

  /** One part of a resource as the model reads it: cut past the file limit, a blob named and left out. */
  private static String block(Mention mention, McpConnection.ResourceContent part, int room) {
    String label = "@" + mention.server() + ":" + (part.uri() == null || part.uri().isBlank() ? mention.uri() : part.uri());
    String type = part.mimeType() == null || part.mimeType().isBlank() ? "" : part.mimeType() + ", ";
    if (part.text() == null) {
      return "--- " + label + ": binary content (" + type + part.blobBytes() + " bytes), not attached ---";
    }
    if (room <= 0) {
      return "[" + label + " not attached: the mentions' total limit of " + Mentions.MAX_TOTAL_CHARS + " characters was reached]";
    }
    int limit = Math.min(Mentions.MAX_FILE_CHARS, room);
    String content = part.text();
    boolean cut = content.length() > limit;
    if (cut) {
      content = content.substring(0, limit);
    }
    StringBuilder block = new StringBuilder("--- ").append(label).append(" ---\n").append(content);
    if (!content.endsWith("\n")) {
      block.append('\n');
    }
    if (cut) {
      block.append("[cut: only the first ").append(limit).append(" characters of ").append(part.text().length())
          .append(" are attached]\n");
    }
    return block.append("--- end of ").append(label).append(" ---").toString();
  }
}
