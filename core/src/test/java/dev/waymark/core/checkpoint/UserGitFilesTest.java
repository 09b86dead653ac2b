package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.project.UserGitConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the user's git settings are looked for: as git looks, from the environment, not from the account. */
class UserGitFilesTest {
  private static final String ACCOUNT_HOME = "/home/account";

  @Test
  void homeIsTheHomeVariableAsForGitNotTheAccountsDirectory() {
    // a user who runs with HOME=/tmp/h has git read /tmp/h/.gitconfig: a .env it ignores there must stay ignored
    var files = UserGitConfig.UserFiles.of(Map.of("HOME", "/tmp/h"), ACCOUNT_HOME);
    assertThat(files.home()).isEqualTo(Path.of("/tmp/h"));
    assertThat(files.globalConfigs()).containsExactly(Path.of("/tmp/h/.gitconfig"), Path.of("/tmp/h/.config/git/config"));
    assertThat(files.xdgConfig()).isEqualTo(Path.of("/tmp/h/.config"));
  }

  @Test
  void withoutHomeTheAccountsDirectoryIsUsed() {
    var files = UserGitConfig.UserFiles.of(Map.of(), ACCOUNT_HOME);
    assertThat(files.home()).isEqualTo(Path.of(ACCOUNT_HOME));
    assertThat(files.systemConfigs()).containsExactly(Path.of("/etc/gitconfig"));
  }

  @Test
  void xdgConfigHomeAndGitConfigGlobalAndNoSystemAreHonoured() {
    var files = UserGitConfig.UserFiles.of(Map.of("HOME", "/h", "XDG_CONFIG_HOME", "/x", "GIT_CONFIG_GLOBAL", "/g/config",
        "GIT_CONFIG_NOSYSTEM", "1"), ACCOUNT_HOME);
    assertThat(files.xdgConfig()).isEqualTo(Path.of("/x"));
    assertThat(files.globalConfigs()).as("GIT_CONFIG_GLOBAL replaces both").containsExactly(Path.of("/g/config"));
    assertThat(files.systemConfigs()).isEmpty();
    assertThat(UserGitConfig.UserFiles.of(Map.of("GIT_CONFIG_SYSTEM", "/s"), ACCOUNT_HOME).systemConfigs())
        .isEqualTo(List.of(Path.of("/s")));
  }
}
