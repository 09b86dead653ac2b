package dev.waymark.core.model;

import com.fasterxml.jackson.databind.JsonNode;

/** A tool offered to the model: its name, what it does, and a JSON schema of its parameters. */
public record ToolSpec(String name, String description, JsonNode parameters) {}
