package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.PackageGraph;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The checkpoint engine's packages depend one way ({@code lib} → {@code store}, {@code project} →
 * {@code restore}, {@code shell} → the facade), so that each can be read without the ones above
 * it, and the rest of Waymark sees the facade and the values, not the engine's insides. Java has
 * no friend packages: this test is the fence.
 */
class CheckpointPackagesTest {
  private static final String ENGINE = "dev.waymark.core.checkpoint";
  private static final String HOME = "dev.waymark.core";

  /** Each sub-package and the engine packages it may use (besides {@code dev.waymark.core}, for WaymarkHome). */
  private static final Map<String, Set<String>> MAY_USE = Map.of(
      ENGINE + ".lib", Set.of(),
      ENGINE + ".store", Set.of(ENGINE + ".lib"),
      ENGINE + ".project", Set.of(ENGINE + ".lib"),
      // an isolated tab's files are its view's (a layer that persists): a restore reads and writes them there
      ENGINE + ".restore", Set.of(ENGINE + ".lib", ENGINE + ".store", HOME + ".layer"),
      // copy-on-write layers know nothing of checkpoints: LayerCapture records a sandboxed command's layer
      ENGINE + ".shell", Set.of(ENGINE + ".lib", ENGINE + ".store", ENGINE + ".project", HOME + ".layer"));

  /** The engine's insides that other packages may use, and why. */
  private static final Set<String> OPEN_INSIDES = Set.of(
      ENGINE + ".shell.CommandSlot", // run_shell and MCP calls take turns per project
      ENGINE + ".shell.CommandMark", // the mark a command's processes carry, to find them again
      ENGINE + ".shell.WorkTreeChanges", // what a command changed, as the tools report it
      ENGINE + ".shell.CommandCapture", // another way to find a command's changes implements the seam
      ENGINE + ".shell.TabRecords", // ... and records them through the checkpoint it is given
      ENGINE + ".project.ProjectWalker"); // list_files, grep and @-mentions walk the project as capture does

  private static final PackageGraph CORE = PackageGraph.ofSources(Path.of("src/main/java"));

  @Test
  void theEngineIsSplitIntoTheLayersThisTestKnows() {
    assertThat(CORE.packages()).containsAll(MAY_USE.keySet()).contains(ENGINE);
    assertThat(CORE.packages().stream().filter(p -> p.startsWith(ENGINE + ".")))
        .as("a new engine package needs its place in MAY_USE")
        .allMatch(MAY_USE::containsKey);
  }

  @Test
  void noEnginePackageUsesOneAboveItOrOutsideTheEngine() {
    List<PackageGraph.Use> upward = CORE.uses().stream()
        .filter(use -> MAY_USE.containsKey(use.from()))
        .filter(use -> !use.to().equals(HOME) && !MAY_USE.get(use.from()).contains(use.to()))
        .toList();
    assertThat(upward).isEmpty();
  }

  /** The values and file utilities at the bottom could be lifted out as a library of their own. */
  @Test
  void libUsesNothingOfWaymark() {
    assertThat(CORE.uses().stream()
        .filter(use -> use.from().equals(ENGINE + ".lib") && use.to().startsWith("dev.waymark"))
        .toList()).isEmpty();
  }

  @Test
  void theFacadeUsesNoWaymarkPackageOutsideTheEngine() {
    List<PackageGraph.Use> outside = CORE.uses().stream()
        .filter(use -> use.from().equals(ENGINE))
        .filter(use -> !use.to().equals(HOME) && !use.to().startsWith(ENGINE + "."))
        .toList();
    assertThat(outside).isEmpty();
  }

  @Test
  void nothingOutsideTheEngineUsesItsInsidesBeyondTheOpenOnes() {
    List<PackageGraph.Use> reaching = CORE.uses().stream()
        .filter(use -> !use.from().startsWith(ENGINE))
        .filter(use -> MAY_USE.containsKey(use.to()) && !use.to().equals(ENGINE + ".lib"))
        .filter(use -> !OPEN_INSIDES.contains(use.to() + "." + use.type()))
        .toList();
    assertThat(reaching).isEmpty();
  }

  @Test
  void belowTheFacadeNothingNamesATurnATreeOrTheStore() {
    List<String> facade = List.of("Turn", "CheckpointTree", "ShadowStore", "CheckpointGraph", "WorkTreeSnapshot");
    assertThat(CORE.uses().stream()
        .filter(use -> MAY_USE.containsKey(use.from()) && use.to().equals(ENGINE) && facade.contains(use.type()))
        .toList()).isEmpty();
  }

  @Test
  void corePackagesUseEachOtherInNoRing() {
    assertThat(CORE.cycles()).isEmpty();
  }

  /** The two captures stand alone: the layer's classes ask the store's view, never the comparison capture. */
  @Test
  void theLayerCaptureNeverNamesTheComparisonCaptureNorKeepsStaticState() throws Exception {
    Path shell = Path.of("src/main/java/dev/waymark/core/checkpoint/shell");
    for (String name : List.of("LayerCapture", "LayerRecording", "LayerRecovery", "CommandJobs")) {
      String source = Files.readString(shell.resolve(name + ".java"));
      assertThat(source).as(name).doesNotContain("ShellChangeTracker", "Scanner");
      assertThat(source.lines().filter(line -> line.contains(" static ") && !line.contains(" final Logger ")
          && (line.contains("Map<") || line.contains("Set<") || line.contains("List<") || line.contains("Executor")))
          .toList()).as(name + ": static state").isEmpty();
    }
  }

  /**
   * What commands leave running is followed in one place for both captures: no other class of the
   * shell package keeps processes in a field, so neither capture follows jobs of its own.
   */
  @Test
  void onlyTheStoresCommandJobsKeepsTheProcessesCommandsLeftRunning() throws Exception {
    Path shell = Path.of("src/main/java/dev/waymark/core/checkpoint/shell");
    List<String> keepers = new ArrayList<>();
    try (var files = Files.list(shell)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        Class<?> type = Class.forName("dev.waymark.core.checkpoint.shell." + file.getFileName().toString().replace(".java", ""));
        for (var field : type.getDeclaredFields()) {
          if (holdsProcesses(field.getGenericType().getTypeName(), type)) {
            keepers.add(type.getSimpleName() + "." + field.getName());
          }
        }
      }
    }
    assertThat(keepers).allMatch(k -> k.startsWith("CommandJobs."));
    assertThat(keepers).as("CommandJobs follows both kinds").contains("CommandJobs.compared", "CommandJobs.layered");
  }

  /** Whether a field of {@code typeName}, declared in {@code owner}, holds processes, itself or through a value nested in {@code owner}. */
  private static boolean holdsProcesses(String typeName, Class<?> owner) {
    if (typeName.contains("ProcessHandle")) {
      return true;
    }
    for (Class<?> nested : owner.getDeclaredClasses()) {
      if (typeName.contains(nested.getName()) && Arrays.stream(nested.getDeclaredFields())
          .anyMatch(f -> f.getGenericType().getTypeName().contains("ProcessHandle"))) {
        return true;
      }
    }
    return false;
  }
}
