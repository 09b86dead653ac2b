package dev.waymark.app;

import dev.waymark.core.hook.HookMatcher;
import dev.waymark.core.hook.HookRunner;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.sandbox.ShellSandbox;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Where the hooks of a run come from: the user's settings, then the project's once it is trusted. */
final class HookFiles {
  private HookFiles() {}

  /**
   * Each hook tagged with the file it is in, for {@code /hooks}; a layer to run in where the sandbox's
   * {@code bwrap} can hold one (the hook gets none of its other limits).
   */
  static Hooks of(Map<String, String> env, Path project, ShellSandbox sandbox, long maxFileSize) {
    List<HookMatcher> all = new ArrayList<>();
    try {
      Path userFile = Settings.userFile(env);
      all.addAll(HookSetting.matchers(Settings.read(userFile).hooks(), "user settings " + userFile));
      // a project's hooks are programs someone else may have written (a cloned repository): they run once trusted
      if (Settings.resolve(env, project).trusted()) {
        Path projectFile = Settings.projectFile(project);
        all.addAll(HookSetting.matchers(Settings.read(projectFile).hooks(), "project settings " + projectFile));
      }
    } catch (Settings.BadSettings e) {
      return Hooks.NONE; // the caller has reported the settings already
    }
    if (all.isEmpty()) {
      return Hooks.NONE;
    }
    return new Hooks(all, new HookRunner(sandbox.confines() ? sandbox.bwrap() : Optional.empty(), maxFileSize));
  }
}
