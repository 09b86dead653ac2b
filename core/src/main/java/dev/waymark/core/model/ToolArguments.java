package dev.waymark.core.model;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Optional;

/** A tool call's arguments: exactly one JSON object, nothing before or after it. */
public final class ToolArguments {
  private static final ObjectMapper STRICT = new ObjectMapper();

  private ToolArguments() {}

  /** The object, or a message saying why the text is not exactly one JSON object. */
  public static ObjectNode parse(String json) throws IOException {
    JsonNode node;
    try (JsonParser parser = STRICT.createParser(json)) {
      node = read(parser, json);
    } catch (JsonProcessingException e) {
      throw new IOException(e.getOriginalMessage().lines().findFirst().orElse("not JSON"));
    }
    if (!(node instanceof ObjectNode object)) {
      throw new IOException("not a JSON object");
    }
    return object;
  }

  private static JsonNode read(JsonParser parser, String json) throws IOException {
    if (parser.nextToken() != JsonToken.START_OBJECT) {
      throw new IOException("it does not start with {");
    }
    JsonNode node = STRICT.readTree(parser);
    if (parser.nextToken() != null) {
      throw new IOException("more follows the first object: " + Excerpts.oneLine(
          json.length() > 80 ? json.substring(0, 80) + "..." : json));
    }
    return node;
  }

  public static Optional<ObjectNode> object(String json) {
    try {
      return Optional.of(parse(json));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  public static boolean isOneObject(String json) {
    return object(json).isPresent();
  }
}
