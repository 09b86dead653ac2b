package dev.waymark.core.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.CommandCapture;
import dev.waymark.core.checkpoint.shell.CommandMark;
import dev.waymark.core.checkpoint.shell.TabRecords;
import dev.waymark.core.checkpoint.shell.WorkTreeChanges;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second way of finding a command's changes plugs in beside the stat scan: it hands the
 * checkpoint each path with what it held before and what it holds now, and the facade records
 * them, so that undo and redo work as for any command. The capture here is what an isolated
 * command's layer does in miniature: the command writes a copy, and its changes are applied.
 */
class CommandCaptureSeamTest {
  @TempDir Path temp;
  StoreFixture f;

  @BeforeEach
  void open() throws Exception {
    f = new StoreFixture(temp);
  }

  @AfterEach
  void close() {
    f.close();
  }

  /** Changes a "command" wrote to its own layer: path → new content, or null for deleted. */
  private final class LayerCapture implements CommandCapture {
    final Map<String, String> layer = new LinkedHashMap<>();

    record Started() implements Before {
      public int fileCount() {
        return 0;
      }

      public int examined() {
        return 0;
      }

      public int stored() {
        return 0;
      }

      public boolean readUsersIndex() {
        return false;
      }
    }

    record Found(WorkTreeChanges changes) implements After {}

    @Override
    public Before before(TabRecords checkpoint, long maxFileSize, CommandMark mark) {
      return new Started();
    }

    @Override
    public After after(TabRecords checkpoint, Before before) {
      try {
        List<String> paths = new ArrayList<>(layer.keySet());
        List<FileState> contents = new ArrayList<>();
        for (String path : paths) {
          Path file = f.file(path);
          contents.add(Files.exists(file) ? FileState.regular(Files.readString(file)) : FileState.absent());
          String now = layer.get(path);
          contents.add(now == null ? FileState.absent() : FileState.regular(now));
        }
        List<FileVersion> stored = checkpoint.store(contents);
        List<FileChange> changes = new ArrayList<>();
        for (int i = 0; i < paths.size(); i++) {
          changes.add(new FileChange(paths.get(i), stored.get(2 * i), stored.get(2 * i + 1)));
        }
        for (String path : paths) { // the layer applied to the project
          if (layer.get(path) == null) {
            Files.delete(f.file(path));
          } else {
            f.writeExternally(path, layer.get(path));
          }
        }
        Map<String, String> refused = checkpoint.recordStoredChanges(changes);
        checkpoint.persist();
        return new Found(new WorkTreeChanges(changes.stream().filter(c -> !refused.containsKey(c.path())).toList(),
            List.of()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void leftRunning(TabRecords checkpoint, After after, List<ProcessHandle> processes) {}
  }

  @Test
  void aSecondCaptureRecordsWhatItFoundAndUndoTakesItBack() throws Exception {
    f.writeExternally("kept.txt", "before\n");
    f.writeExternally("gone.txt", "doomed\n");
    CheckpointTree tab = f.store.openTab("t");
    Turn turn = tab.begin();
    LayerCapture capture = new LayerCapture();
    WorkTreeSnapshot command = turn.snapshotWorkTree(capture, 1 << 20, CommandMark.random());
    capture.layer.put("kept.txt", "after\n");
    capture.layer.put("new/made.txt", "made\n");
    capture.layer.put("gone.txt", null);

    WorkTreeChanges changes = command.recordChanges();
    turn.finish(CheckpointStatus.DONE);

    assertThat(changes.recorded()).extracting(FileChange::path).containsExactly("kept.txt", "new/made.txt", "gone.txt");
    assertThat(f.read("kept.txt")).isEqualTo("after\n");
    tab.undo();
    assertThat(f.read("kept.txt")).isEqualTo("before\n");
    assertThat(f.read("gone.txt")).isEqualTo("doomed\n");
    assertThat(f.exists("new/made.txt")).isFalse();
    tab.redo();
    assertThat(f.read("new/made.txt")).isEqualTo("made\n");
    assertThat(f.exists("gone.txt")).isFalse();
  }
}
