package dev.waymark.core.sandbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a sandboxed command's output for the marks of what the sandbox refused, so the model can
 * be told in one line that the refusal was the sandbox's, not the program's fault, and what to do.
 */
public final class SandboxRefusals {
  private static final List<String> WRITE = List.of("Read-only file system", "EROFS",
      "Device or resource busy"); // removing or renaming one of the sandbox's mount points
  private static final List<String> NETWORK = List.of("Network is unreachable", "ENETUNREACH", "Connection refused",
      "ECONNREFUSED", "Could not resolve host", "Temporary failure in name resolution", "Name or service not known",
      "EAI_AGAIN", "getaddrinfo", "UnknownHostException", "No address associated with hostname");

  private SandboxRefusals() {}

  /** The line to add to the tool result, if {@code output} shows the sandbox refused a write or (when off) a connection. */
  public static Optional<String> explain(String output, boolean networkOff) {
    return explain(output, networkOff, false);
  }

  /** {@link #explain(String, boolean)}, naming a Unix socket too while the filter refuses them ({@code socketsBlocked}). */
  public static Optional<String> explain(String output, boolean networkOff, boolean socketsBlocked) {
    boolean write = WRITE.stream().anyMatch(output::contains);
    boolean network = networkOff && NETWORK.stream().anyMatch(output::contains);
    String lower = output.toLowerCase(Locale.ROOT);
    // the filter's EPERM, said by the program that tried: "socket: operation not permitted", socket.py's PermissionError
    boolean socket = socketsBlocked && lower.contains("socket") && lower.contains("operation not permitted");
    if (!write && !network && !socket) {
      return Optional.empty();
    }
    List<String> parts = new ArrayList<>();
    if (write) {
      parts.add(network || socket ? "a write outside the project's writable places"
          : "a write outside the project's writable places (the project, /tmp and the declared writable directories)");
    }
    if (network) {
      parts.add(write || socket ? "a network connection"
          : "a network connection (the network is off in the sandbox, localhost included)");
    }
    if (socket) {
      parts.add("a Unix socket (no command in the sandbox can make one)");
    }
    String what = String.join(" and ", parts);
    return Optional.of("[the sandbox refused " + what + "; if the command needs it, ask the user, or run it again with "
        + "\"sandbox\": false, which the user must approve]");
  }
}
