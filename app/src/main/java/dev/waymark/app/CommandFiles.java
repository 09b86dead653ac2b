package dev.waymark.app;

import dev.waymark.core.context.CustomCommands;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** Where the custom {@code /name} commands of a run come from: the user's, and the project's once it is trusted. */
final class CommandFiles {
  private CommandFiles() {}

  /**
   * A project's own commands are prompts someone else may have written (a cloned repository): like
   * its settings, they count only once the user trusts the project.
   */
  static CustomCommands of(Map<String, String> env, Path project) {
    boolean trusted;
    try {
      trusted = Settings.resolve(env, project).trusted();
    } catch (Settings.BadSettings e) {
      trusted = false; // the caller has reported the settings already
    }
    return CustomCommands.of(trusted ? Optional.of(project) : Optional.empty(), Settings.userFile(env).getParent());
  }
}
