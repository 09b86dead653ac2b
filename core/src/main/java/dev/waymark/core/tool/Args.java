package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.protocol.ErrorKind;
import java.util.Optional;

/**
 * A tool call's arguments, read strictly: a missing required parameter or one of the wrong type
 * is a {@link ToolError} that names it, so the model can correct the call. {@code null} counts as
 * absent.
 */
final class Args {
  private final JsonNode node;

  private Args(JsonNode node) {
    this.node = node;
  }

  static Args of(JsonNode node) throws ToolError {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return new Args(JsonNodeFactory.instance.objectNode());
    }
    if (!node.isObject()) {
      throw new ToolError(ErrorKind.REFUSED, "The arguments must be a JSON object, not " + node.getNodeType().name().toLowerCase());
    }
    return new Args(node);
  }

  String string(String name) throws ToolError {
    return optionalString(name).orElseThrow(() -> new ToolError(ErrorKind.REFUSED, "Missing required parameter \"" + name + "\"."));
  }

  Optional<String> optionalString(String name) throws ToolError {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isTextual()) {
      throw new ToolError(ErrorKind.REFUSED, "Parameter \"" + name + "\" must be a string, not " + value.getNodeType().name().toLowerCase() + ".");
    }
    return Optional.of(value.asText());
  }

  /** An integer in {@code [min, max]}; a string of digits is accepted too, as models send those. */
  Optional<Long> optionalLong(String name, long min, long max) throws ToolError {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    long n;
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      n = value.asLong();
    } else if (value.isTextual() && value.asText().trim().matches("-?\\d{1,18}")) {
      n = Long.parseLong(value.asText().trim());
    } else {
      throw new ToolError(ErrorKind.REFUSED, "Parameter \"" + name + "\" must be an integer.");
    }
    if (n < min || n > max) {
      throw new ToolError(ErrorKind.REFUSED, "Parameter \"" + name + "\" must be between " + min + " and " + max + ", not " + n + ".");
    }
    return Optional.of(n);
  }

  Optional<Boolean> optionalBoolean(String name) throws ToolError {
    JsonNode value = node.get(name);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (value.isBoolean()) {
      return Optional.of(value.asBoolean());
    }
    if (value.isTextual() && (value.asText().equals("true") || value.asText().equals("false"))) {
      return Optional.of(Boolean.parseBoolean(value.asText()));
    }
    throw new ToolError(ErrorKind.REFUSED, "Parameter \"" + name + "\" must be true or false.");
  }

  /** Builds a tool's JSON schema: an object of named, described parameters. */
  static final class Schema {
    private final ObjectNode schema = JsonNodeFactory.instance.objectNode();
    private final ObjectNode properties;
    private final ArrayNode required;

    Schema() {
      schema.put("type", "object");
      properties = schema.putObject("properties");
      required = schema.putArray("required");
      schema.put("additionalProperties", false);
    }

    Schema string(String name, String description, boolean required) {
      return add(name, "string", description, required);
    }

    Schema integer(String name, String description, boolean required) {
      return add(name, "integer", description, required);
    }

    Schema bool(String name, String description, boolean required) {
      return add(name, "boolean", description, required);
    }

    private Schema add(String name, String type, String description, boolean required) {
      ObjectNode p = properties.putObject(name);
      p.put("type", type);
      p.put("description", description);
      if (required) {
        this.required.add(name);
      }
      return this;
    }

    ObjectNode build() {
      return schema;
    }
  }
}
