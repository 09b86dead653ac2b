package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.WaymarkHome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoTest {
  @TempDir Path temp;

  @Test
  void whereTheLastDemoIsIsReadableByItsOwnerOnly() throws Exception {
    WaymarkHome home = new WaymarkHome(temp.resolve("home"));
    Demo.Prepared prepared = Demo.prepare(home);

    Path last = home.root().resolve("demo-last.txt");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(last))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home.root()))).isEqualTo("rwx------");
    assertThat(Demo.last(home).project()).isEqualTo(prepared.project());
  }
}
