package dev.waymark.core.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.TagNames;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bundle is someone else's file (#48 items 1 and 2): the paths and tags of the session it
 * carries never make an import, a load or a restore write outside the project, into its
 * {@code .git}, through a link, or to another tab's tags.
 */
class UntrustedBundleTest {
  private static final String EMPTY_BASE = "{\"project\":\"elsewhere\",\"files\":{}}";

  @TempDir Path temp;
  BundleFixture f;
  Path outside;

  @BeforeEach
  void setUp() throws Exception {
    f = new BundleFixture(temp);
    outside = Files.createDirectories(temp.resolve("outside"));
    Files.createDirectories(f.second.resolve(".git/hooks"));
    Files.createSymbolicLink(f.second.resolve("linked"), outside);
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  /** Where each hostile path would write, from the second clone. */
  private Path target(String path) {
    return path.startsWith("/") ? Path.of(path) : f.second.resolve(path).normalize();
  }

  @ParameterizedTest
  @ValueSource(strings = {"../pwned.txt", "ABSOLUTE/pwned.txt", ".git/hooks/post-checkout", "src/.GIT/config",
      "linked/pwned.txt", "a/./b.txt"})
  void aPathThatLeavesTheProjectReachesGitOrGoesThroughALinkRefusesTheImportInOneLine(String hostile) throws Exception {
    String path = hostile.replace("ABSOLUTE", outside.toString());
    SessionFile session = f.exportedSession();
    Path bundle = f.bundle(BundleFixture.rewritten(session, path), EMPTY_BASE, "crafted");

    Throwable refused = catchThrowable(() -> SessionShare.importFrom(f.importer, SessionStore.of(f.importer), bundle));
    if (refused == null) {
      // what the user does next with an imported session: open it and redo
      Workspace ws = f.workspace(f.importer);
      WorkspaceTab tab = ws.open(ws.files().load(session.id())).tabs().get(0);
      BundleFixture.run(ws, tab, e -> e instanceof Event.CheckpointRestored || e instanceof Event.Error, new Command.Redo(true));
    }

    assertThat(Files.exists(target(path), LinkOption.NOFOLLOW_LINKS)).as("%s is not written", target(path)).isFalse();
    assertThat(outside).isEmptyDirectory();
    assertThat(refused).isInstanceOf(SessionException.class);
    assertThat(refused.getMessage()).as("one line").doesNotContain("\n")
        .contains(bundle.toString(), "Nothing was imported", path);
    assertThat(f.importer.tabIds()).as("no tag was brought in").isEmpty();
    assertThat(SessionStore.of(f.importer).file(session.id())).doesNotExist();
  }

  @Test
  void aSessionFileOnDiskWithSuchAPathIsRefusedWhenLoadedInOneLine() throws Exception {
    SessionFile session = f.exportedSession();
    SessionStore files = SessionStore.of(f.exporter);
    for (String path : List.of("../pwned.txt", ".git/hooks/post-checkout", outside.resolve("pwned.txt").toString())) {
      files.save(BundleFixture.rewritten(session, path));
      assertThatThrownBy(() -> files.load(session.id())).as(path).isInstanceOf(SessionException.class)
          .hasMessageContaining("not a valid session file").hasMessageContaining(path)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  /** A link is the project's own state, made after any check of a file: the restore itself never writes through one. */
  @Test
  void aSessionFileOnDiskWhosePathGoesThroughALinkMadeSinceNeverWritesThroughIt() throws Exception {
    SessionFile session = f.exportedSession();
    SessionStore files = SessionStore.of(f.exporter);
    files.save(BundleFixture.rewritten(session, "linked/pwned.txt"));
    Files.createSymbolicLink(f.first.resolve("linked"), outside);

    Workspace ws = f.workspace(f.exporter);
    WorkspaceTab tab = ws.open(files.load(session.id())).tabs().get(0);
    Event redone = BundleFixture.run(ws, tab, e -> e instanceof Event.CheckpointRestored || e instanceof Event.Error,
        new Command.Redo(true));

    assertThat(outside).isEmptyDirectory();
    assertThat(redone).isInstanceOfSatisfying(Event.Error.class, e -> assertThat(e.message()).contains("linked is a symbolic link")
        .doesNotContain("\n"));
  }

  @Test
  void aBaseThatNamesAPathOutsideTheProjectIsRefusedBeforeAnyFileIsRead() throws Exception {
    Files.writeString(outside.resolve("secret.txt"), "secret\n");
    SessionFile session = f.exportedSession();
    Files.writeString(f.second.resolve("a.txt"), "hi\n");
    String base = "{\"project\":\"elsewhere\",\"files\":{\"a.txt\":\"absent\",\"../outside/secret.txt\":\"absent\"}}";
    Path bundle = f.bundle(session, base, "base");

    assertThatThrownBy(() -> SessionShare.importFrom(f.importer, SessionStore.of(f.importer), bundle))
        .isInstanceOf(SessionException.class).hasMessageContaining("its base names a path Waymark does not restore")
        .hasMessageContaining("../outside/secret.txt").hasMessageNotContaining("exists here");
  }

  @Test
  void anImportedTagIsNamedFromItsOwnTabAndNeverRewritesAnotherTabsTag() throws Exception {
    // the importer's own tab, whose #1 wrote b.txt
    Workspace mine = f.workspace(f.importer);
    WorkspaceTab victim = mine.newTab();
    BundleFixture.prompt(mine, victim, "write b.txt");
    mine.save(null);
    String victimTag = TagNames.tabPrefix(victim.tabId()) + 1;
    ObjectId victimCommit = commitOf(victim.tabId());
    mine.close();

    SessionFile session = f.exportedSession();
    Path bundle = f.bundle(BundleFixture.tagged(session, victimTag), EMPTY_BASE, "tagged");
    Throwable refused = catchThrowable(() -> SessionShare.importFrom(f.importer, SessionStore.of(f.importer), bundle));
    if (refused == null) {
      Workspace ws = f.workspace(f.importer);
      ws.open(ws.files().load(session.id()));
      ws.close();
    }

    assertThat(commitOf(victim.tabId())).as("%s still names the victim's own checkpoint", victimTag).isEqualTo(victimCommit);
    String imported = session.tabs().get(0).tabId();
    if (refused == null) {
      assertThat(commitOf(imported)).as("the imported tab's #1 is under its own tag").isEqualTo(
          ObjectId.fromString(session.tabs().get(0).checkpoints().get(1).commit()));
    } else {
      assertThat(refused.getMessage()).doesNotContain("\n").contains("Nothing was imported");
    }
  }

  /** An undo of a subagent's turn acts on the child tab its result names: an imported one may name only its own session's tabs. */
  @Test
  void aSubagentResultNamingAnotherTabOfThisProjectRefusesTheImport() throws Exception {
    Workspace mine = f.workspace(f.importer);
    WorkspaceTab victim = mine.newTab();
    BundleFixture.prompt(mine, victim, "write b.txt");
    mine.save(null);
    mine.close();

    SessionFile session = f.exportedSession();
    SessionFile.Tab tab = session.tabs().get(0);
    SessionFile.Checkpoint one = tab.checkpoints().get(1);
    List<SessionFile.Message> messages = new ArrayList<>(one.messages());
    messages.add(new SessionFile.Message("tool", "Done.\n[subagent tab " + victim.tabId() + ", checkpoints: #1]", null, "call-9",
        "task", false));
    SessionFile.Checkpoint linked = new SessionFile.Checkpoint(one.number(), one.parent(), one.status(), one.created(), one.commit(),
        one.tag(), one.saved(), one.changes(), messages, one.draft(), one.pending(), one.transcript());
    SessionFile crafted = new SessionFile(session.schemaVersion(), session.id(), session.name(), session.project(),
        session.created(), session.updated(), session.activeTab(), List.of(new SessionFile.Tab(tab.tabId(), tab.title(),
            tab.provider(), tab.model(), tab.input(), tab.live(), tab.filesAt(), tab.redo(), List.of(tab.checkpoints().get(0), linked),
            tab.saves())));
    Path bundle = f.bundle(crafted, EMPTY_BASE, "linked");

    assertThatThrownBy(() -> SessionShare.importFrom(f.importer, SessionStore.of(f.importer), bundle))
        .isInstanceOf(SessionException.class).hasMessageContaining("naming tab \"" + victim.tabId() + "\"")
        .hasMessageContaining("Nothing was imported");
    assertThat(f.importer.tabIds()).containsExactly(victim.tabId());
  }

  /** The commit of {@code tab}'s #1, as its tags have it. */
  private ObjectId commitOf(String tab) {
    CheckpointTree tree = f.importer.loadTab(tab);
    try {
      return tree.checkpoints().stream().filter(cp -> cp.number() == 1).findFirst().orElseThrow().commit().orElseThrow();
    } finally {
      tree.release();
    }
  }
}
