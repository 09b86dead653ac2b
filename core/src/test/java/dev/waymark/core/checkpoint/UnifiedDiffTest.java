package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Diffs of changes not yet made (an isolated tab's view against the project, an approval's
 * preview): a side that does not exist is a file made or deleted, never "a directory or special
 * file" (#47 case 3: a view's deletion showed the overlay's marker so).
 */
class UnifiedDiffTest {
  @Test
  void aDeletedFileIsADeletionToDevNull() {
    assertThat(UnifiedDiff.of("a.txt", "one\n", null)).isEqualTo("diff --waymark a/a.txt b/a.txt\n--- a/a.txt\n+++ /dev/null\n"
        + "@@ -1 +0,0 @@\n-one\n").doesNotContain("special file");
  }

  @Test
  void aNewFileComesFromDevNull() {
    assertThat(UnifiedDiff.of("b.txt", null, "tab\n")).isEqualTo("diff --waymark a/b.txt b/b.txt\n--- /dev/null\n+++ b/b.txt\n"
        + "@@ -0,0 +1 @@\n+tab\n");
  }
}
