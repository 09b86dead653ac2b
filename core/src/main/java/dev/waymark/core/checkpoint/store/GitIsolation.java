package dev.waymark.core.checkpoint.store;

import java.io.File;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;

/**
 * Cuts JGit off from the user's and the system's git configuration, so that no setting of theirs
 * (hooks, signing, autocrlf, a broken config file) reaches the shadow repository, and JGit writes
 * nothing under the user's home (it would otherwise save file-system timings in
 * {@code ~/.config/jgit/config}) and never runs the {@code git} program to find the system config.
 */
public final class GitIsolation {
  private static boolean installed;

  private GitIsolation() {}

  public static synchronized void install() {
    if (installed) {
      return;
    }
    SystemReader.setInstance(new SystemReader.Delegate(SystemReader.getInstance()) {
      @Override
      public FileBasedConfig openUserConfig(Config parent, FS fs) {
        return new UserConfig(parent, fs);
      }

      @Override
      public FileBasedConfig openSystemConfig(Config parent, FS fs) {
        return new EmptyConfig(parent, fs);
      }

      @Override
      public FileBasedConfig openJGitConfig(Config parent, FS fs) {
        return new EmptyConfig(parent, fs);
      }
    });
    installed = true;
  }

  /** A config that reads as empty and forgets what is saved to it. */
  private static class EmptyConfig extends FileBasedConfig {
    EmptyConfig(Config parent, FS fs) {
      super(parent, (File) null, fs);
    }

    @Override
    public void load() {
      // nothing to read: the user's configuration must not apply
    }

    @Override
    public void save() {
      // nothing to write: JGit must not create files under the user's home
    }

    @Override
    public boolean isOutdated() {
      return false;
    }
  }

  /**
   * The user-level config, empty but for the file-system timings JGit looks up there. Without
   * them JGit measures the timestamp resolution of each file system for seconds at every start
   * (it cannot keep the result: its own config file is gone), and a background measurement would
   * drop probe files into the store. Two seconds is JGit's own fallback: the coarsest, hence
   * safe, value; it only makes JGit re-read a file written less than two seconds ago.
   */
  private static final class UserConfig extends EmptyConfig {
    private static final long COARSE_NANOS = TimeUnit.SECONDS.toNanos(2);

    UserConfig(Config parent, FS fs) {
      super(parent, fs);
    }

    @Override
    public long getTimeUnit(String section, String subsection, String name, long defaultValue,
        TimeUnit wantUnit) {
      if ("filesystem".equals(section)
          && ("timestampResolution".equals(name) || "minRacyThreshold".equals(name))) {
        return wantUnit.convert("timestampResolution".equals(name) ? COARSE_NANOS : 0,
            TimeUnit.NANOSECONDS);
      }
      return super.getTimeUnit(section, subsection, name, defaultValue, wantUnit);
    }
  }
}
