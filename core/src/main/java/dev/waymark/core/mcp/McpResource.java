package dev.waymark.core.mcp;

/**
 * A resource an MCP server lists, attached to a message as {@code @SERVER:URI}.
 *
 * @param size in bytes as the server tells it, or -1 when it does not
 */
public record McpResource(String server, String uri, String name, String mimeType, long size) {
  public McpResource {
    name = name == null ? "" : name;
    mimeType = mimeType == null ? "" : mimeType;
  }

  /** How a message names it: {@code SERVER:URI}, after an {@code @}. */
  public String mention() {
    return server + ":" + uri;
  }
}
