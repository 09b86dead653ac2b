package dev.waymark.core.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.waymark.core.model.ToolSpec;

/**
 * One tool the model may call. Names and parameters are a public contract. A tool never throws
 * for bad input: it returns an error result the model can read.
 */
public interface Tool {
  ToolSpec spec();

  ToolKind kind();

  /** A short human summary of a call, e.g. the path or the command, for approval prompts and logs. */
  String describe(JsonNode arguments);

  ToolResult run(JsonNode arguments, ToolContext context);

  /**
   * What the call would change, as a unified diff, for an approval prompt; empty when the tool
   * changes no file or the change cannot be foreseen. Reads only; never throws.
   */
  default String preview(JsonNode arguments, java.nio.file.Path projectRoot) {
    return "";
  }

  /**
   * True when the call would send the content of a secrets file ({@code .env}, {@code .env.local},
   * …) to the model: such a call asks for approval in every mode, and "allow for this session"
   * does not cover it.
   */
  default boolean readsSecrets(JsonNode arguments) {
    return false;
  }

  /** A file whose content is secret by convention: {@code .env} and {@code .env.*}. */
  static boolean isSecretsFile(String path) {
    String name = path.replace('\\', '/');
    name = name.substring(name.lastIndexOf('/') + 1);
    return name.equals(".env") || name.startsWith(".env.");
  }

  default String name() {
    return spec().name();
  }
}
