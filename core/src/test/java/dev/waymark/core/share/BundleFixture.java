package dev.waymark.core.share;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TabBundles;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Two clones of a project side by side, each with its own Waymark home, as two people have them:
 * the first makes sessions to export (a tab's turn writes a file), the second imports them. A
 * crafted bundle is an ordinary export whose session file was rewritten, as an attacker makes one.
 */
final class BundleFixture implements AutoCloseable {
  /** A turn for each prompt: "write NAME" writes NAME with "hi". */
  private static final String SCRIPT = ("{'responses':["
      + "{'whenLastUser':'write a.txt','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'hi\\n'}}]},"
      + "{'whenLastUser':'write a.txt','text':'Wrote a.txt.'},"
      + "{'whenLastUser':'write b.txt','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'mine\\n'}}]},"
      + "{'whenLastUser':'write b.txt','text':'Wrote b.txt.'},"
      + "{'whenLastUser':'write view.txt','toolCalls':[{'name':'write_file','arguments':{'path':'view.txt','content':'view\\n'}}]},"
      + "{'whenLastUser':'write view.txt','text':'Wrote view.txt.'},"
      + "{'text':'ok'},{'text':'ok'},{'text':'ok'}]}").replace('\'', '"');

  final Path temp;
  final Path first;
  final Path second;
  final ShadowStore exporter;
  final ShadowStore importer;
  private final List<Workspace> workspaces = new ArrayList<>();

  BundleFixture(Path temp) throws IOException {
    this.temp = temp;
    first = Files.createDirectories(temp.resolve("first"));
    second = Files.createDirectories(temp.resolve("second"));
    exporter = ShadowStore.open(first, new WaymarkHome(temp.resolve("home-one")), RetentionPolicy.DEFAULT);
    importer = ShadowStore.open(second, new WaymarkHome(temp.resolve("home-two")), RetentionPolicy.DEFAULT);
  }

  /** A workspace on {@code store} whose tabs answer with the script, closed with the fixture. */
  Workspace workspace(ShadowStore store) {
    Workspace ws = newWorkspace(store);
    workspaces.add(ws);
    return ws;
  }

  /** A workspace on {@code store} whose tabs answer with the script; the caller closes it. */
  static Workspace newWorkspace(ShadowStore store) {
    Path project = store.projectDirectory();
    return new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT, "test")), Toolset.of(Tools.standard().all()),
        new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory));
  }

  /** Runs {@code commands} in {@code tab} and waits for the event {@code until}. */
  static Event run(Workspace ws, WorkspaceTab tab, Predicate<Event> until, Command... commands) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    tab.subscribe(events::add);
    ws.submit(tab, List.of(commands));
    while (true) {
      Event e = events.poll(20, TimeUnit.SECONDS);
      assertThat(e).as("an event in time").isNotNull();
      if (until.test(e)) {
        tab.session().idle().get(10, TimeUnit.SECONDS);
        return e;
      }
    }
  }

  /** A prompt's turn in {@code tab}, to its end. */
  static void prompt(Workspace ws, WorkspaceTab tab, String prompt) throws Exception {
    run(ws, tab, e -> e instanceof Event.TurnFinished, new Command.SendPrompt(prompt));
  }

  /** A saved session of the first clone with one tab whose #1 wrote a.txt; the workspace is closed. */
  SessionFile exportedSession() throws Exception {
    Workspace ws = workspace(exporter);
    WorkspaceTab tab = ws.newTab();
    prompt(ws, tab, "write a.txt");
    ws.save(null);
    SessionFile saved = ws.files().load(ws.id());
    ws.close();
    workspaces.remove(ws);
    return saved;
  }

  /** A bundle of {@code session}'s tabs' tags carrying {@code session} as its session file and {@code base} as its base. */
  Path bundle(SessionFile session, String base, String name) {
    return bundle(session.tabs().stream().map(SessionFile.Tab::tabId).toList(), json(session),
        base.getBytes(StandardCharsets.UTF_8), name);
  }

  /** A bundle of the tags of the first clone's {@code tabs}, carrying {@code session} and {@code base} as they are. */
  Path bundle(List<String> tabs, byte[] session, byte[] base, String name) {
    Path file = temp.resolve(name + ".bundle");
    TabBundles.write(exporter, tabs, Map.of(SessionShare.SESSION, session, SessionShare.BASE, base), file);
    return file;
  }

  static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule())
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  static byte[] json(SessionFile session) {
    try {
      return JSON.writeValueAsBytes(session);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code session} with every change's path in its tabs set to {@code path}, and each tab back at #0 with its checkpoints to redo. */
  static SessionFile rewritten(SessionFile session, String path) {
    List<SessionFile.Tab> tabs = new ArrayList<>();
    for (SessionFile.Tab tab : session.tabs()) {
      List<SessionFile.Checkpoint> checkpoints = new ArrayList<>();
      for (SessionFile.Checkpoint cp : tab.checkpoints()) {
        checkpoints.add(new SessionFile.Checkpoint(cp.number(), cp.parent(), cp.status(), cp.created(), cp.commit(), cp.tag(),
            cp.saved(), cp.changes().stream().map(c -> new SessionFile.Change(path, c.before(), c.after())).toList(),
            cp.messages(), cp.draft(), cp.pending(), cp.transcript()));
      }
      tabs.add(new SessionFile.Tab(tab.tabId(), tab.title(), tab.provider(), tab.model(), tab.input(), 0, 0,
          checkpoints.stream().filter(cp -> cp.number() > 0).map(SessionFile.Checkpoint::number).toList(), checkpoints,
          tab.saves(), tab.closed(), tab.approval(), tab.subagentOf()));
    }
    return new SessionFile(session.schemaVersion(), session.id(), session.name(), session.project(), session.created(),
        session.updated(), session.activeTab(), tabs, session.formerNames());
  }

  /** {@code session} with {@code tag} as the tag of each tab's #1. */
  static SessionFile tagged(SessionFile session, String tag) {
    List<SessionFile.Tab> tabs = new ArrayList<>();
    for (SessionFile.Tab tab : session.tabs()) {
      List<SessionFile.Checkpoint> checkpoints = tab.checkpoints().stream().map(cp -> cp.number() != 1 ? cp
          : new SessionFile.Checkpoint(cp.number(), cp.parent(), cp.status(), cp.created(), cp.commit(), tag, cp.saved(),
              cp.changes(), cp.messages(), cp.draft(), cp.pending(), cp.transcript())).toList();
      tabs.add(new SessionFile.Tab(tab.tabId(), tab.title(), tab.provider(), tab.model(), tab.input(), tab.live(),
          tab.filesAt(), tab.redo(), checkpoints, tab.saves(), tab.closed(), tab.approval(), tab.subagentOf()));
    }
    return new SessionFile(session.schemaVersion(), session.id(), session.name(), session.project(), session.created(),
        session.updated(), session.activeTab(), tabs, session.formerNames());
  }

  @Override
  public void close() {
    workspaces.forEach(Workspace::close);
    importer.close();
    exporter.close();
  }
}
