package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.wording.Wording;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a command's moves and deletions read back, in its result and in the undo's account. */
class ShellRenameTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void setUp() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS);
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void aMoveReadsAsARenameAndAnUndoSaysWhatItDeletedRatherThanCallingItWritten() throws IOException {
    f.write("a.txt", "alpha\n");
    f.write("x.txt", "x\n");
    f.write("same1.txt", "same\n");

    ToolResult r = f.shell("mv a.txt b.txt; rm x.txt; echo same > same2.txt; printf 'new' > c.txt");
    assertThat(r.content()).endsWith("Files changed (recorded; undo restores them):\n"
        + "  renamed a.txt → b.txt\n"
        + "  created c.txt\n"
        + "  created same2.txt\n"
        + "  deleted x.txt\n");

    f.finish();
    assertThat(Wording.restored(f.tab.undo())).isEqualTo("Restored #0: 2 files written, 3 files deleted.");
    assertThat(Wording.restored(f.tab.redo())).isEqualTo("Restored #1: 3 files written, 2 files deleted.");
    assertThat(Wording.restored(f.tab.goTo(1))).isEqualTo("Restored #1: no file changed.");
  }
}
