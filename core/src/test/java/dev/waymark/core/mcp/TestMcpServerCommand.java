package dev.waymark.core.mcp;

import java.util.List;

/** How other modules' tests start {@link TestMcpServer}: a fresh JVM on this test class path. */
public final class TestMcpServerCommand {
  private TestMcpServerCommand() {}

  public static List<String> command(String mode) {
    return TestMcpServer.command(mode);
  }
}
