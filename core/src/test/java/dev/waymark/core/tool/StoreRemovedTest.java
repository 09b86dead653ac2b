package dev.waymark.core.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.CheckpointStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shadow repository disappears while Waymark runs: edits are refused and put back, with a clear message. */
class StoreRemovedTest {
  @TempDir Path temp;
  ToolFixture f;

  @BeforeEach
  void open() throws Exception {
    f = new ToolFixture(temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void anEditAfterTheStoreWasDeletedIsPutBackAndTheTurnSaysWhy() throws Exception {
    f.write("a.txt", "mine\n");
    try (Stream<Path> all = Files.walk(f.store.shadowDirectory())) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }

    ToolResult r = f.call("write_file", "path", "a.txt", "content", "theirs\n");
    assertThat(r.isError()).isTrue();
    assertThat(r.content()).contains("could not be checkpointed", "the file is as it was");
    assertThat(f.read("a.txt")).isEqualTo("mine\n");
    ToolResult created = f.call("write_file", "path", "new.txt", "content", "x\n");
    assertThat(created.isError()).isTrue();
    assertThat(f.file("new.txt")).doesNotExist();
    assertThat(f.turn.finish(CheckpointStatus.DONE).changes()).as("nothing half-recorded").isEmpty();
  }
}
