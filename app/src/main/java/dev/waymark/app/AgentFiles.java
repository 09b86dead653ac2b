package dev.waymark.app;

import dev.waymark.core.subagent.AgentCatalog;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Where the agents a {@code task} may name come from: the user's, and the project's once it is trusted (as skills). */
final class AgentFiles {
  private AgentFiles() {}

  static AgentCatalog of(Map<String, String> env, Path project) {
    boolean trusted;
    try {
      trusted = Settings.resolve(env, project).trusted();
    } catch (Settings.BadSettings e) {
      trusted = false; // the caller has reported the settings already
    }
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    return AgentCatalog.of(trusted ? Optional.of(project) : Optional.empty(), Settings.userFile(env).getParent(), Path.of(home));
  }
}
