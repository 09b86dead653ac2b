package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What exec prints of a shell command's result besides its first line. */
class ExecOutputTest {
  @Test
  void whatACommandChangedThatUndoWillNotRestoreIsPrintedForTheScriptToSee() {
    StringBuilder result = new StringBuilder("(no output)\n[exit code 0]\nFiles changed (recorded; undo restores them):\n"
        + "  created a.txt\nChanged but not recorded (undo will not restore them):\n");
    for (int i = 0; i < 12; i++) {
      result.append("  big").append(i).append(".bin: larger than the 10485760-byte limit for undoable files\n");
    }

    var lines = ExecCommand.notRecorded(result.toString());

    assertThat(lines).hasSize(12);
    assertThat(lines.get(0)).isEqualTo("    Changed but not recorded (undo will not restore them):");
    assertThat(lines.get(1)).isEqualTo("      big0.bin: larger than the 10485760-byte limit for undoable files");
    assertThat(lines.get(11)).isEqualTo("      … and 2 more");
    assertThat(ExecCommand.notRecorded("hello\n[exit code 0]\n")).isEmpty();
  }
}
