package dev.waymark.core.checkpoint.project;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The git settings that decide how the user's repository is read: where its ignore file is and
 * whether git converts line endings, from the repository's config, the user's and the system's,
 * found as git finds them ({@link UserFiles}). Read only.
 */
public final class UserGitConfig {
  private static final Logger LOG = LoggerFactory.getLogger(UserGitConfig.class);

  private final Path workTree;
  private final Path commonDir;
  /** Where git finds the user's settings (the environment does not change while Waymark runs). */
  private final UserFiles user;

  UserGitConfig(Path workTree, Path commonDir, UserFiles user) {
    this.workTree = workTree;
    this.commonDir = commonDir;
    this.user = user;
  }

  /** core.autocrlf is true or input: git may store any text file with LF for CRLF. */
  boolean normalisesEverything() {
    return configs().stream().map(config -> readConfig(config, "core", "autocrlf"))
        .anyMatch(autocrlf -> "true".equalsIgnoreCase(autocrlf) || "input".equalsIgnoreCase(autocrlf));
  }

  /** git's {@code core.excludesFile}: from the repository's config, else the user's, else the XDG default. */
  Optional<Path> excludesFile() {
    for (Path config : configs()) {
      String value = readConfig(config, "core", "excludesFile");
      if (value != null && !value.isBlank()) {
        Path file = value.startsWith("~/") ? user.home().resolve(value.substring(2)) : Path.of(value);
        return Optional.of(file.isAbsolute() ? file : workTree.resolve(file));
      }
    }
    return Optional.of(user.xdgConfig().resolve("git/ignore"));
  }

  /** The config files git reads for this repository, the strongest first: its own, the user's, the system's. */
  private List<Path> configs() {
    List<Path> configs = new ArrayList<>(List.of(commonDir.resolve("config")));
    configs.addAll(user.globalConfigs());
    configs.addAll(user.systemConfigs());
    return configs;
  }

  /**
   * Where git finds the user's own files, from the environment as git reads it: {@code $HOME}
   * (the account's home directory only when it is unset), {@code $XDG_CONFIG_HOME},
   * {@code GIT_CONFIG_GLOBAL} (then the only global config), {@code GIT_CONFIG_NOSYSTEM}.
   */
  public record UserFiles(Path home, Path xdgConfig, List<Path> globalConfigs, List<Path> systemConfigs) {
    public static UserFiles of(Map<String, String> env, String accountHome) {
      String homeVariable = env.get("HOME");
      Path home = Path.of(homeVariable == null || homeVariable.isBlank() ? accountHome : homeVariable);
      String xdg = env.get("XDG_CONFIG_HOME");
      Path xdgConfig = xdg == null || xdg.isBlank() ? home.resolve(".config") : Path.of(xdg);
      String global = env.get("GIT_CONFIG_GLOBAL");
      List<Path> globals = global != null && !global.isBlank() ? List.of(Path.of(global))
          : List.of(home.resolve(".gitconfig"), xdgConfig.resolve("git/config")); // ~/.gitconfig wins
      String noSystem = env.get("GIT_CONFIG_NOSYSTEM");
      boolean system = noSystem == null || noSystem.isBlank() || noSystem.equals("0") || noSystem.equalsIgnoreCase("false");
      String systemFile = env.get("GIT_CONFIG_SYSTEM");
      List<Path> systems = !system ? List.of()
          : List.of(Path.of(systemFile != null && !systemFile.isBlank() ? systemFile : "/etc/gitconfig"));
      return new UserFiles(home, xdgConfig, globals, systems);
    }
  }

  /** Whether git converts line endings of every text file on checkout (autocrlf, eol=crlf). */
  boolean convertsLineEndings() {
    for (Path config : configs()) {
      String autocrlf = readConfig(config, "core", "autocrlf");
      String eol = readConfig(config, "core", "eol");
      if ("true".equalsIgnoreCase(autocrlf) || "crlf".equalsIgnoreCase(eol)) {
        return true;
      }
    }
    return false;
  }

  private static String readConfig(Path file, String section, String name) {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    FileBasedConfig config = new FileBasedConfig(file.toFile(), FS.DETECTED);
    try {
      config.load();
    } catch (IOException | ConfigInvalidException e) {
      LOG.debug("cannot read {}: {}", file, e.toString());
      return null;
    }
    return config.getString(section, null, name);
  }
}
