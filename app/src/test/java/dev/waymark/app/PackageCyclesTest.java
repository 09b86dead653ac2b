package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.PackageGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The packages of the three modules use each other in no ring, so that each can be read from the
 * bottom up (the interface's was {@code command} ↔ {@code keys} ↔ {@code screen} ↔ {@code frame}
 * until carrying out a command moved to {@code run}, above them).
 */
class PackageCyclesTest {
  private static final List<Path> ROOTS = List.of(Path.of("../core/src/main/java"), Path.of("../tui/src/main/java"),
      Path.of("src/main/java"));
  private static final PackageGraph ALL = PackageGraph.ofSources(ROOTS.toArray(Path[]::new));

  @Test
  void noRing() {
    assertThat(ALL.cycles()).isEmpty();
  }

  @Test
  void noInterfacePackageUsesTheInterfaceThatHoldsIt() {
    assertThat(ALL.uses().stream()
        .filter(use -> use.from().startsWith("dev.waymark.tui.") && use.to().equals("dev.waymark.tui"))
        .toList()).isEmpty();
  }

  @Test
  void everyPackageSaysWhatItIsForAndWhatItMayUse() {
    List<String> silent = ALL.packages().stream()
        .filter(pkg -> ROOTS.stream().noneMatch(root -> Files.isRegularFile(
            root.resolve(pkg.replace('.', '/')).resolve("package-info.java"))))
        .toList();
    assertThat(silent).as("packages without a package-info.java").isEmpty();
  }

  @Test
  void theEngineUsesNeitherTheInterfaceNorTheApp() {
    assertThat(ALL.uses().stream()
        .filter(use -> use.from().startsWith("dev.waymark.core"))
        .filter(use -> !use.to().startsWith("dev.waymark.core"))
        .toList()).isEmpty();
  }
}
