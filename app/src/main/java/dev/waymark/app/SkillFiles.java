package dev.waymark.app;

import dev.waymark.core.skill.SkillCatalog;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Where the Agent Skills of a run come from: the user's, and the project's once it is trusted. */
final class SkillFiles {
  private SkillFiles() {}

  /** A project's skills are instructions someone else may have written (a cloned repository): like its commands, they count once trusted. */
  static SkillCatalog of(Map<String, String> env, Path project) {
    boolean trusted;
    try {
      trusted = Settings.resolve(env, project).trusted();
    } catch (Settings.BadSettings e) {
      trusted = false; // the caller has reported the settings already
    }
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    return trusted ? SkillCatalog.of(Optional.of(project), Settings.userFile(env).getParent(), Path.of(home))
        : SkillCatalog.untrusted(project, Settings.userFile(env).getParent(), Path.of(home));
  }

  /** What the trust question adds of an untrusted project's skills, which load only once it is trusted; empty with none. */
  static String untrustedNote(Map<String, String> env, Path project) {
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    List<String> names = SkillCatalog.untrusted(project, Settings.userFile(env).getParent(), Path.of(home)).refused().stream()
        .filter(r -> r.directory().startsWith(project)).map(r -> r.directory().getFileName().toString()).toList();
    return names.isEmpty() ? "" : " Its skills are not loaded either: " + String.join(", ", names) + ".";
  }
}
