package dev.waymark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WaymarkHomeTest {
  private static final Path HOME = Path.of("/home/u");

  @Test
  void waymarkHomeWinsOverXdgDataHome() {
    assertThat(WaymarkHome.fromEnvironment(Map.of("WAYMARK_HOME", "/data/wm", "XDG_DATA_HOME", "/x"), HOME).root())
        .isEqualTo(Path.of("/data/wm"));
  }

  @Test
  void xdgDataHomeComesNext() {
    assertThat(WaymarkHome.fromEnvironment(Map.of("XDG_DATA_HOME", "/x"), HOME).root()).isEqualTo(Path.of("/x/waymark"));
  }

  @Test
  void theDefaultIsUnderDotLocalShare() {
    assertThat(WaymarkHome.fromEnvironment(Map.of(), HOME).root()).isEqualTo(Path.of("/home/u/.local/share/waymark"));
    assertThat(WaymarkHome.fromEnvironment(Map.of("XDG_DATA_HOME", "relative"), HOME).root())
        .isEqualTo(Path.of("/home/u/.local/share/waymark"));
  }

  @Test
  void newDirectoriesAreReadableByTheirOwnerOnly(@TempDir Path temp) throws Exception {
    Path dir = WaymarkHome.createPrivateDirectories(temp.resolve("a/b/c"));
    for (Path p : new Path[] {temp.resolve("a"), temp.resolve("a/b"), dir}) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p))).isEqualTo("rwx------");
    }
  }
}
