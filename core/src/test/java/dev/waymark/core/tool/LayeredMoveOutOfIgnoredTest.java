package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sandboxed command that moves the user's files out of an ignored place: undo never deletes the
 * only copy of them. The move is recorded as one (the ignored side too), so undo puts them back.
 */
@Tag("process")
class LayeredMoveOutOfIgnoredTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws IOException {
    f = new ToolFixture(temp, ToolSettings.DEFAULTS.withSandbox(
        Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config")))));
    f.write(".gitignore", "data/\n*.log\n");
    f.write("data/db.sqlite", "the user's database\n");
    f.write("data/sub/cache.bin", "cache\n");
    f.write("run.log", "the user's log\n");
    f.nextTurn();
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void anIgnoredDirectoryRenamedByTheCommandComesBackOnUndo() throws Exception {
    ToolResult result = f.shell("mv data data-old");
    assertThat(result.isError()).as(result.content()).isFalse();
    assertThat(f.read("data-old/db.sqlite")).isEqualTo("the user's database\n");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("data/db.sqlite")).as("the database is back where it was").isEqualTo("the user's database\n");
    assertThat(f.read("data/sub/cache.bin")).isEqualTo("cache\n");
    assertThat(f.exists("data-old/db.sqlite")).isFalse();
  }

  @Test
  void aMovedIgnoredFileTheCommandThenChangedComesBackAsItWas() throws Exception {
    f.shell("mv data data-old && echo 'a row' >> data-old/db.sqlite");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("data/db.sqlite")).isEqualTo("the user's database\n");
  }

  @Test
  void anIgnoredFileRenamedToARecordedNameComesBackOnUndo() throws Exception {
    f.shell("mv run.log kept.txt");
    f.finish();
    assertThat(f.tab.undo().applied()).isTrue();
    assertThat(f.read("run.log")).isEqualTo("the user's log\n");
    assertThat(f.exists("kept.txt")).isFalse();
  }

  @Test
  void anIgnoredFileTheCommandOnlyDeletedIsStillNotRecorded() throws Exception {
    ToolResult result = f.shell("rm run.log && echo new > new.txt");
    assertThat(result.content()).contains("run.log: ignored by .gitignore");
    assertThat(f.recorded()).containsExactly("new.txt");
  }
}
