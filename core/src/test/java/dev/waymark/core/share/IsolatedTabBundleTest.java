package dev.waymark.core.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.sandbox.Bwrap;
import dev.waymark.core.sandbox.SandboxPolicy;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An isolated tab's files are a view of its own, which a bundle does not carry (#47 case 5): the
 * export leaves the tab out and says why, so no import brings it back as a plain tab whose undo
 * or redo would write the view's files into the other clone's project.
 */
class IsolatedTabBundleTest {
  @TempDir Path temp;
  BundleFixture f;
  Optional<Path> bwrap;

  @BeforeEach
  void setUp() throws Exception {
    bwrap = Bwrap.required(SandboxPolicy.protecting(temp.resolve("home"), temp.resolve("config"))).bwrap();
    f = new BundleFixture(temp);
  }

  @AfterEach
  void tearDown() {
    f.close();
  }

  @Test
  void anExportLeavesAnIsolatedTabOutSayingWhyAndTheImportNeverWritesItsViewIntoTheProject() throws Exception {
    Workspace ws = f.workspace(f.exporter);
    WorkspaceTab plain = ws.newTab();
    BundleFixture.prompt(ws, plain, "write a.txt");
    WorkspaceTab isolated = ws.newIsolatedTab(bwrap);
    BundleFixture.prompt(ws, isolated, "write view.txt");
    assertThat(f.first.resolve("view.txt")).as("the view's file is not the project's").doesNotExist();
    ws.save(null);
    String session = ws.id();

    Path bundle = temp.resolve("shared.bundle");
    SessionShare.Exported exported = SessionShare.export(f.exporter, ws.files(), session, bundle);
    assertThat(exported.session().tabs()).extracting(SessionFile.Tab::tabId).containsExactly(plain.tabId());
    assertThat(exported.notes()).singleElement().satisfies(note -> assertThat(note)
        .contains("Tab " + isolated.tabId() + " is isolated", "not in the bundle", "land or discard it"));

    Files.writeString(f.second.resolve("a.txt"), "hi\n");
    SessionShare.Imported imported = SessionShare.importFrom(f.importer, SessionStore.of(f.importer), bundle);
    assertThat(imported.session().tabs()).extracting(SessionFile.Tab::tabId).containsExactly(plain.tabId());
    assertThat(f.importer.tabIds()).containsExactly(plain.tabId());

    // whatever the user does with what came in, the view's file never lands in the second clone
    Workspace there = f.workspace(f.importer);
    for (WorkspaceTab tab : there.open(there.files().load(session)).tabs()) {
      BundleFixture.run(there, tab, e -> e instanceof Event.CheckpointRestored || e instanceof Event.Error,
          new Command.Undo(OptionalInt.of(0), true));
      BundleFixture.run(there, tab, e -> e instanceof Event.CheckpointRestored || e instanceof Event.Error, new Command.Redo(true));
    }
    assertThat(f.second.resolve("view.txt")).doesNotExist();
    assertThat(f.second.resolve("a.txt")).hasContent("hi");
  }

  @Test
  void aSessionWhoseEveryTabIsIsolatedIsNotExportedAndSaysWhy() throws Exception {
    Workspace ws = f.workspace(f.exporter);
    WorkspaceTab isolated = ws.newIsolatedTab(bwrap);
    BundleFixture.prompt(ws, isolated, "write view.txt");
    ws.save(null);

    Path bundle = temp.resolve("none.bundle");
    assertThatThrownBy(() -> SessionShare.export(f.exporter, ws.files(), ws.id(), bundle)).isInstanceOf(SessionException.class)
        .hasMessageContaining("every tab of it is isolated").hasMessageContaining("Land or discard");
    assertThat(bundle).doesNotExist();
  }
}
