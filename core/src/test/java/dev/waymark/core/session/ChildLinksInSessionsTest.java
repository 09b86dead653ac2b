package dev.waymark.core.session;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.ChildLink;
import dev.waymark.core.checkpoint.TreeSnapshot;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A parent checkpoint's child tabs in a session file: values now, and read once from the old line of older sessions. */
class ChildLinksInSessionsTest {
  private static SessionFile.Checkpoint parentCheckpoint(List<SessionFile.Message> messages, List<SessionFile.Child> children) {
    return new SessionFile.Checkpoint(1, 0, "done", Instant.EPOCH, null, null, List.of(), List.of(), messages, null, null,
        null, children);
  }

  private static SessionFile.Message taskResult(String text) {
    return new SessionFile.Message("tool", text, null, "call_1", "task", false);
  }

  private static SessionFile.Tab tab(SessionFile.Checkpoint cp) {
    SessionFile.Checkpoint start = new SessionFile.Checkpoint(0, -1, "done", Instant.EPOCH, null, null, List.of(), List.of(),
        List.of(), null, null);
    return new SessionFile.Tab("tparent", "t", "p", "m", "", 1, 1, List.of(), List.of(start, cp), Map.of());
  }

  @Test
  void aSessionFromBeforeLinksStillKnowsItsChildrenFromTheOldLineAndIsWrittenInTheNewForm() {
    SessionFile.Checkpoint old = parentCheckpoint(List.of(
        taskResult("a.txt is written.\n\n[subagent tab tchild1, checkpoints: #1, #2]"),
        taskResult("The subagent failed: boom\n\n[subagent tab tchild2, checkpoints:]"),
        taskResult("a user's text that mentions [subagent tab tother, checkpoints: #4] midway, then more")), null);

    List<ChildLink> children = SessionCodec.snapshot(tab(old)).checkpoints().get(1).children();

    assertThat(children).as("only a last line naming checkpoints is a link").containsExactly(
        new ChildLink("tchild1", 1, 2, false));
    SessionFile.Checkpoint written = parentCheckpoint(List.of(), children.stream()
        .map(c -> new SessionFile.Child(c.tab(), c.first(), c.last(), c.isolated())).toList());
    assertThat(SessionCodec.children(written)).containsExactly(new ChildLink("tchild1", 1, 2, false));
  }

  @Test
  void aLinkThatCannotBeOneIsLeftOut() {
    SessionFile.Checkpoint bad = parentCheckpoint(List.of(), List.of(new SessionFile.Child("../x", 1, 1, false),
        new SessionFile.Child("tok", 3, 2, false), new SessionFile.Child("tok", 0, 0, false),
        new SessionFile.Child("tgood", 1, 1, true)));

    assertThat(SessionCodec.children(bad)).containsExactly(new ChildLink("tgood", 1, 1, true));
  }

  @Test
  void aTabIsSavedWithItsCheckpointsChildrenAndLoadedBackWithThem() {
    List<ChildLink> links = List.of(new ChildLink("tchild1", 1, 1, false), new ChildLink("tchild2", 1, 2, true));
    Checkpoint start = new Checkpoint(0, -1, CheckpointStatus.DONE, Instant.EPOCH, List.of(), Optional.empty(),
        Optional.empty(), Set.of());
    Checkpoint delegated = new Checkpoint(1, 0, CheckpointStatus.DONE, Instant.EPOCH, List.of(), Optional.empty(),
        Optional.empty(), Set.of(), links);
    TreeSnapshot tree = new TreeSnapshot("tparent", List.of(start, delegated), 1, 1, List.of(), Map.of());

    SessionFile.Tab saved = SessionCodec.capture(new SessionCodec.TabValues(tree, TabMemory.EMPTY, "m", "ask",
        new SessionCodec.TabInfo("t", "p", "")));

    assertThat(saved.checkpoints().get(1).children()).containsExactly(new SessionFile.Child("tchild1", 1, 1, false),
        new SessionFile.Child("tchild2", 1, 2, true));
    assertThat(saved.checkpoints().get(0).children()).as("none: left out").isNull();
    assertThat(SessionCodec.snapshot(saved).checkpoints().get(1).children()).isEqualTo(links);
  }
}
