package dev.waymark.core.model;

import java.util.Objects;

/** A tool call the model asked for; {@code argumentsJson} is the raw JSON object it sent. */
public record ToolCall(String id, String name, String argumentsJson) {
  public ToolCall {
    Objects.requireNonNull(id);
    Objects.requireNonNull(name);
    argumentsJson = argumentsJson == null || argumentsJson.isBlank() ? "{}" : argumentsJson;
  }
}
