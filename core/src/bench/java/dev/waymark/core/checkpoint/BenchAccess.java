package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.store.GitIsolation;
import java.io.IOException;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;

/**
 * The benchmark's only door into the engine's package: it installs the engine's own JGit
 * isolation, so that the whole-tree baseline runs under exactly the same rules as Waymark (no
 * user or system git config read, nothing written under {@code ~/.config/jgit}).
 *
 * <p>Lives in the bench source root, which is compiled only in the {@code bench} profile.
 */
public final class BenchAccess {
  /** A key that the benchmark's sandbox home sets in every git config file JGit could read. */
  public static final String MARKER_SECTION = "waymarkbench";
  public static final String MARKER_KEY = "leak";

  private BenchAccess() {}

  /** Installs {@link GitIsolation} and fails if JGit could still see a user or system config. */
  public static void isolateGit() {
    GitIsolation.install();
    try {
      SystemReader reader = SystemReader.getInstance();
      check("user", reader.openUserConfig(null, FS.DETECTED));
      check("system", reader.openSystemConfig(null, FS.DETECTED));
      check("jgit", reader.openJGitConfig(null, FS.DETECTED));
      check("user (cached)", reader.getUserConfig());
    } catch (IOException | ConfigInvalidException e) {
      throw new IllegalStateException("could not check the JGit isolation", e);
    }
  }

  /** True when {@code config} (or a parent) carries the sandbox home's marker: a config leaked in. */
  public static boolean leaked(Config config) {
    return config.getString(MARKER_SECTION, null, MARKER_KEY) != null;
  }

  private static void check(String which, Config config) throws IOException, ConfigInvalidException {
    if (config instanceof FileBasedConfig) {
      FileBasedConfig file = (FileBasedConfig) config;
      file.load();
      if (file.getFile() != null) {
        throw new IllegalStateException("JGit is not isolated: the " + which + " config is " + file.getFile());
      }
    }
    if (leaked(config) || !config.toText().isEmpty()) {
      throw new IllegalStateException("JGit is not isolated: the " + which + " config reads as\n" + config.toText());
    }
  }
}
