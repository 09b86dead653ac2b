package dev.waymark.core.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * What an SDK message holds, in words a model reads: a tool's result and a prompt's parts. Text is
 * given as it is; images, audio and other binary parts by type and size, never their bytes.
 */
final class SdkContentText {
  private static final ObjectMapper JSON = new ObjectMapper();

  private SdkContentText() {}

  /** One part of a prompt's message in words: text as it is, anything else named. */
  static String part(McpSchema.Content content) {
    if (content instanceof McpSchema.TextContent t) {
      return t.text() == null ? "" : t.text();
    }
    if (content instanceof McpSchema.EmbeddedResource embedded) {
      McpSchema.ResourceContents contents = embedded.resource();
      if (contents instanceof McpSchema.TextResourceContents t) {
        return "--- resource " + t.uri() + " ---\n" + t.text() + (t.text().endsWith("\n") ? "" : "\n") + "--- end of resource "
            + t.uri() + " ---";
      }
      if (contents instanceof McpSchema.BlobResourceContents b) {
        return "[resource " + b.uri() + ": " + b.mimeType() + ", " + decodedSize(b.blob()) + " bytes, not attached]";
      }
    }
    if (content instanceof McpSchema.ImageContent image) {
      return "[image: " + image.mimeType() + ", " + decodedSize(image.data()) + " bytes, not attached]";
    }
    if (content instanceof McpSchema.AudioContent audio) {
      return "[audio: " + audio.mimeType() + ", " + decodedSize(audio.data()) + " bytes, not attached]";
    }
    if (content instanceof McpSchema.ResourceLink link) {
      return "[resource link: " + link.uri() + "]";
    }
    return content == null ? "" : "[" + content.type() + " content]";
  }

  /** What a result holds, in words a model reads: texts, then images and other binary parts by type and size, then structured content. */
  static String text(McpSchema.CallToolResult result) {
    StringBuilder out = new StringBuilder();
    boolean anyText = false;
    for (McpSchema.Content part : result.content() == null ? List.<McpSchema.Content>of() : result.content()) {
      if (out.length() > 0) {
        out.append('\n');
      }
      if (part instanceof McpSchema.TextContent t) {
        out.append(t.text());
        anyText = true;
      } else if (part instanceof McpSchema.ImageContent image) {
        out.append("[image: ").append(image.mimeType()).append(", ").append(decodedSize(image.data())).append(" bytes]");
      } else if (part instanceof McpSchema.AudioContent audio) {
        out.append("[audio: ").append(audio.mimeType()).append(", ").append(decodedSize(audio.data())).append(" bytes]");
      } else if (part instanceof McpSchema.ResourceLink link) {
        out.append("[resource link: ").append(link.uri());
        if (link.name() != null) {
          out.append(" \"").append(link.name()).append('"');
        }
        if (link.mimeType() != null) {
          out.append(", ").append(link.mimeType());
        }
        if (link.size() != null) {
          out.append(", ").append(link.size()).append(" bytes");
        }
        out.append(']');
        if (link.description() != null && !link.description().isBlank()) {
          out.append(' ').append(link.description());
        }
      } else if (part instanceof McpSchema.EmbeddedResource embedded) {
        McpSchema.ResourceContents contents = embedded.resource();
        if (contents instanceof McpSchema.TextResourceContents t) {
          out.append("[resource ").append(t.uri()).append("]\n").append(t.text());
          anyText = true;
        } else if (contents instanceof McpSchema.BlobResourceContents b) {
          out.append("[resource ").append(b.uri()).append(": ").append(b.mimeType()).append(", ")
              .append(decodedSize(b.blob())).append(" bytes]");
        }
      } else if (part != null) {
        out.append("[").append(part.type()).append(" content]");
      }
    }
    if (result.structuredContent() != null) {
      try {
        String structured = JSON.writeValueAsString(result.structuredContent());
        if (!anyText || !saidAlready(JSON.valueToTree(result.structuredContent()), out.toString())) {
          out.append(out.length() > 0 ? "\n" : "").append("Structured content: ").append(structured);
        }
      } catch (IOException e) {
        out.append("[structured content that could not be written]");
      }
    }
    return out.toString();
  }

  /**
   * Whether the text parts already say what the structured content holds: as its JSON, or every
   * text value of it word for word (servers are asked to send both, and often send the same thing twice).
   */
  private static boolean saidAlready(JsonNode structured, String text) {
    String compact = structured.toString();
    if (text.contains(compact)) {
      return true;
    }
    // only text values: a number such as 42 turns up in any text
    List<JsonNode> values = new ArrayList<>();
    structured.forEach(values::add);
    return !values.isEmpty() && values.stream().allMatch(v -> v.isTextual() && !v.asText().isBlank() && text.contains(v.asText()));
  }

  static long decodedSize(String base64) {
    if (base64 == null) {
      return 0;
    }
    try {
      return Base64.getDecoder().decode(base64.replaceAll("\\s", "")).length;
    } catch (IllegalArgumentException e) {
      return base64.length() * 3L / 4;
    }
  }
}
