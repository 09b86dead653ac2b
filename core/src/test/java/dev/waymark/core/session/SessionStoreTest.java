package dev.waymark.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RestoredTab;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.model.ToolCall;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.testing.Eventually;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Sessions: save, load, recreate tags, delete, and files that cannot be read. */
class SessionStoreTest {
  private static final String SCRIPT = "{'responses':["
      + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'TAB.txt','content':'one'}}]},"
      + "{'whenLastUser':'one','text':'wrote one'},"
      + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'TAB.txt','content':'two'}}]},"
      + "{'whenLastUser':'two','text':'wrote two'},"
      + "{'whenLastUser':'three','toolCalls':[{'name':'write_file','arguments':{'path':'TAB.txt','content':'three'}}]},"
      + "{'whenLastUser':'three','text':'wrote three'}]}";

  @TempDir Path temp;
  Path project;
  WaymarkHome home;
  ShadowStore store;
  SessionStore sessions;
  final List<TabSession> open = new ArrayList<>();

  @BeforeEach
  void setUp() {
    project = temp.resolve("project");
    project.toFile().mkdirs();
    home = new WaymarkHome(temp.resolve("home"));
    store = ShadowStore.open(project, home, RetentionPolicy.DEFAULT);
    sessions = SessionStore.of(store);
  }

  @AfterEach
  void tearDown() {
    open.forEach(TabSession::close);
    store.close();
  }

  private TabSession tab(String file, CheckpointTree tree, TabMemory memory) {
    ScriptedChatModel model = new ScriptedChatModel(ScriptedChatModel.parse(SCRIPT.replace("TAB.txt", file).replace('\'', '"'), "s"));
    TabSession s = TabSession.of(tree, project, model, Toolset.of(Tools.standard().all()),
        new SessionSettings("scripted", ApprovalMode.YOLO, false, null), memory);
    open.add(s);
    return s;
  }

  private static Event await(TabSession session, LinkedBlockingQueue<Event> events, Predicate<Event> what) throws Exception {
    while (true) {
      Event e = events.poll(10, TimeUnit.SECONDS);
      if (e == null) {
        throw new AssertionError("no such event from " + session.checkpoints().tabId());
      }
      if (what.test(e)) {
        return e;
      }
    }
  }

  private static void run(TabSession session, Command command) throws Exception {
    LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    session.subscribe(events::add);
    session.submit(command);
    session.idle().get(20, TimeUnit.SECONDS);
  }

  /** A tab that wrote one, two; undid two; branched three from one. */
  private TabSession busyTab(String file) throws Exception {
    TabSession s = tab(file, store.newTab(), TabMemory.EMPTY);
    run(s, new Command.SendPrompt("one"));
    run(s, new Command.SendPrompt("two"));
    run(s, new Command.KeepDraft("half a thought"));
    run(s, Command.Undo.one());
    run(s, new Command.SendPrompt("three"));
    run(s, new Command.Save("kept"));
    return s;
  }

  private SessionFile saveAll(List<TabSession> tabs) {
    List<SessionFile.Tab> records = new ArrayList<>();
    for (TabSession t : tabs) {
      records.add(SessionCodec.capture(SessionCodec.valuesOf(t, new SessionCodec.TabInfo("title " + t.checkpoints().tabId(), "scripted", "typed"))));
    }
    SessionFile file = new SessionFile(SessionStore.SCHEMA_VERSION, sessions.newId(), "work", project.toString(),
        sessions.now(), sessions.now(), records.get(0).tabId(), records);
    sessions.save(file);
    return file;
  }

  @Test
  void reasoningAndThinkingBlocksWithTheirSignaturesSurviveSaveAndLoad() throws Exception {
    TabSession busy = busyTab("a.txt");
    Map<Integer, List<ChatMessage>> messages = new TreeMap<>(busy.memory().messages());
    messages.put(1, List.of(new ChatMessage.User("one"),
        new ChatMessage.Assistant("", List.of(new ToolCall("c1", "read_file", "{}")),
            List.of(new ChatMessage.Reasoning("deepseek thought", null, null),
                new ChatMessage.Reasoning("claude thought", "EqQBCgIYAhIM", null),
                new ChatMessage.Reasoning("", null, "EmwKAhgBEgy3")))));
    TabSession thinking = tab("a.txt", busy.checkpoints(),
        new TabMemory(messages, busy.memory().drafts(), busy.memory().pending()));

    SessionFile saved = saveAll(List.of(thinking));

    assertThat(SessionCodec.memory(sessions.load(saved.id()).tabs().get(0))).isEqualTo(thinking.memory());
  }

  @Test
  void threeTabsWithBranchesSurviveSaveAndLoadWithEverythingEqual() throws Exception {
    List<TabSession> tabs = List.of(busyTab("a.txt"), busyTab("b.txt"), busyTab("c.txt"));
    SessionFile saved = saveAll(tabs);

    SessionFile loaded = sessions.load(saved.id());
    assertThat(loaded).isEqualTo(saved);
    assertThat(sessions.load("work").id()).isEqualTo(saved.id());
    for (int i = 0; i < 3; i++) {
      TabSession before = tabs.get(i);
      SessionFile.Tab record = loaded.tabs().get(i);
      RestoredTab restored = store.restoreTab(SessionCodec.snapshot(record));
      assertThat(restored.lostCheckpoints()).isEmpty();
      assertThat(restored.recreatedTags()).isEmpty();
      assertThat(restored.tree().snapshot()).isEqualTo(before.checkpoints().snapshot());
      assertThat(SessionCodec.memory(record)).isEqualTo(before.memory());
      assertThat(record.input()).isEqualTo("typed");
    }
    assertThat(Files.getPosixFilePermissions(sessions.file(saved.id())))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
  }

  @Test
  void aLoadedTabGoesOnWhereItStoodUndoRedoAndTheConversationIncluded() throws Exception {
    TabSession original = busyTab("a.txt");
    SessionFile saved = saveAll(List.of(original));
    original.close();
    open.clear();

    SessionFile.Tab record = sessions.load(saved.id()).tabs().get(0);
    TabSession back = tab("a.txt", store.restoreTab(SessionCodec.snapshot(record)).tree(), SessionCodec.memory(record));
    assertThat(back.conversation().toString()).contains("one", "three").doesNotContain("wrote two");
    run(back, new Command.GoTo(2));
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("two");
    run(back, Command.Undo.one());
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("one");
  }

  @Test
  void aFilesModeIsSavedWithTheSessionAndAnOlderSessionWithoutModesStillLoads() throws Exception {
    Files.writeString(project.resolve("a.txt"), "zero");
    Files.setPosixFilePermissions(project.resolve("a.txt"), PosixFilePermissions.fromString("rw-------"));
    TabSession original = tab("a.txt", store.newTab(), TabMemory.EMPTY);
    run(original, new Command.SendPrompt("one"));
    SessionFile saved = saveAll(List.of(original));
    assertThat(Files.readString(sessions.file(saved.id()))).containsPattern("\"mode\" ?: ?\"0600\"");

    SessionFile.Tab record = sessions.load(saved.id()).tabs().get(0);
    var change = SessionCodec.snapshot(record).checkpoints().get(1).changes().get(0);
    assertThat(change.before().mode()).isEqualTo(0600);
    assertThat(change.after().mode()).isEqualTo(0600);

    // written before modes were recorded: the versions have none, and restores fall back to git's two modes
    String older = Files.readString(sessions.file(saved.id())).replaceAll(",\\s*\"mode\" ?: ?\"0600\"", "");
    assertThat(older).doesNotContain("\"mode\"");
    Files.writeString(sessions.file(saved.id()), older);
    var olderChange = SessionCodec.snapshot(sessions.load(saved.id()).tabs().get(0)).checkpoints().get(1).changes().get(0);
    assertThat(olderChange.after().hasMode()).isFalse();
    assertThat(olderChange.after().blob()).isEqualTo(change.after().blob());
  }

  @Test
  void missingTagsAreRecreatedFromTheirCommits() throws Exception {
    TabSession t = busyTab("a.txt");
    SessionFile saved = saveAll(List.of(t));
    t.close();
    open.clear();
    store.deleteTab(saved.tabs().get(0).tabId());
    assertThat(git("tag", "-l", "waymark/*")).isBlank();

    RestoredTab restored = store.restoreTab(SessionCodec.snapshot(sessions.load(saved.id()).tabs().get(0)));
    assertThat(restored.lostCheckpoints()).isEmpty();
    assertThat(restored.recreatedTags()).hasSize(4); // #1, #2, #3 and the save
    String tabId = saved.tabs().get(0).tabId();
    assertThat(git("show", "waymark/" + tabId + "/2:post/a.txt")).isEqualTo("two");
    assertThat(git("tag", "-l", "waymark/" + tabId + "/saved/*")).contains("saved/kept");
  }

  @Test
  void aCheckpointWhoseCommitIsGoneIsNamedAndItsConversationStillLoads() throws Exception {
    TabSession t = busyTab("a.txt");
    SessionFile saved = saveAll(List.of(t));
    SessionFile.Tab tab = saved.tabs().get(0);
    List<SessionFile.Checkpoint> damaged = new ArrayList<>();
    for (SessionFile.Checkpoint cp : tab.checkpoints()) {
      damaged.add(cp.number() != 2 ? cp : new SessionFile.Checkpoint(cp.number(), cp.parent(), cp.status(), cp.created(),
          "0123456789012345678901234567890123456789", cp.tag(), cp.saved(), cp.changes(), cp.messages(), cp.draft(), cp.pending()));
    }
    SessionFile.Tab broken = new SessionFile.Tab(tab.tabId(), tab.title(), tab.provider(), tab.model(), tab.input(),
        tab.live(), tab.filesAt(), tab.redo(), damaged, tab.saves());

    RestoredTab restored = store.restoreTab(SessionCodec.snapshot(broken));
    assertThat(restored.lostCheckpoints()).containsExactly(2);
    assertThat(restored.tree().checkpoint(2).changes()).as("still named, so the next save keeps them").isNotEmpty();
    assertThatThrownBy(() -> restored.tree().goTo(2)).hasMessageContaining("#2").hasMessageContaining("nothing was restored");
    assertThat(SessionCodec.memory(broken).messages().get(2).toString()).contains("two");
  }

  @Test
  void deletingASessionDeletesItsTagsAndItsFile() throws Exception {
    List<TabSession> opened = List.of(busyTab("a.txt"), busyTab("b.txt"));
    SessionFile saved = saveAll(opened);
    TabSession other = busyTab("c.txt"); // not in the session: its tags stay
    assertThat(git("tag", "-l", "waymark/*").lines().count()).isEqualTo(12);
    assertThatThrownBy(() -> sessions.delete(saved.id(), store)).as("its tabs are open here")
        .isInstanceOf(SessionException.class).hasMessageContaining("was not deleted")
        .extracting(e -> ((SessionException) e).kind()).isEqualTo(ErrorKind.BUSY);
    assertThat(git("tag", "-l", "waymark/*").lines().count()).isEqualTo(12);
    assertThat(sessions.file(saved.id())).exists();
    opened.forEach(TabSession::close);

    sessions.delete(saved.id(), store);

    assertThat(git("tag", "-l", "waymark/*").lines()).allMatch(t -> t.startsWith("waymark/" + other.checkpoints().tabId()));
    assertThat(sessions.file(saved.id())).doesNotExist();
    assertThat(sessions.list()).isEmpty();
  }

  @Test
  void aCorruptFileIsAClearErrorAndIsLeftAsItIs() throws Exception {
    Files.createDirectories(sessions.directory());
    Path file = sessions.directory().resolve("20260101-000000-abcdef.json");
    byte[] corrupt = "{\"schemaVersion\": 1, \"id\": \"x\", \"tabs\": [ {\"tabId\": ".getBytes(StandardCharsets.UTF_8);
    Files.write(file, corrupt);

    assertThatThrownBy(() -> sessions.load("20260101-000000-abcdef"))
        .isInstanceOf(SessionException.class).hasMessageContaining(file + ":1:").hasMessageContaining("left as it is")
        .extracting(e -> ((SessionException) e).kind()).isEqualTo(ErrorKind.LOST);
    assertThat(Files.readAllBytes(file)).isEqualTo(corrupt);
    assertThat(sessions.list()).singleElement().satisfies(l -> assertThat(l.problem()).isPresent());
    assertThatThrownBy(() -> sessions.latest()).isInstanceOf(SessionException.class).hasMessageContaining(file.toString());
  }

  @Test
  void aDamagedNewestFileIsNamedAndRefusedNotSkippedForAnOlderOne() throws Exception {
    SessionFile older = saveAll(List.of(busyTab("a.txt")));
    Path newest = sessions.directory().resolve("20990101-000000-abcdef.json");
    Files.writeString(newest, "{\"schemaVersion\": 1, \"id\": \"20990101-000000-abcdef\", \"tabs\": [");
    Files.setLastModifiedTime(newest, FileTime.from(Instant.now().plusSeconds(3600)));

    assertThatThrownBy(() -> sessions.latest()).isInstanceOf(SessionException.class)
        .hasMessageContaining(newest.toString()).hasMessageContaining("--session");
    assertThat(sessions.load(older.id()).id()).as("naming another session still works").isEqualTo(older.id());
    assertThat(Files.readString(newest)).endsWith("[");
  }

  @Test
  void aFileFromANewerWaymarkSaysSoAndIsLeftAsItIs() throws Exception {
    Files.createDirectories(sessions.directory());
    Path file = sessions.directory().resolve("future.json");
    Files.writeString(file, "{\"schemaVersion\": 99, \"id\": \"future\", \"tabs\": []}");
    assertThatThrownBy(() -> sessions.load("future")).hasMessageContaining("newer Waymark")
        .hasMessageContaining("format 99");
    assertThat(Files.readString(file)).contains("99");
  }

  @Test
  void listIsNewestFirstAndLatestSkipsUnreadableFiles() throws Exception {
    SessionFile first = saveAll(List.of(busyTab("a.txt")));
    Eventually.until("the store's clock moved past the first save", () -> sessions.now().isAfter(first.updated()));
    SessionFile second = new SessionFile(1, sessions.newId() + "b", null, project.toString(), sessions.now(),
        sessions.now(), null, List.of());
    sessions.save(second);
    assertThat(sessions.list()).extracting(SessionStore.Listing::id).containsExactly(second.id(), first.id());
    assertThat(sessions.latest()).map(SessionFile::id).contains(second.id());
    assertThatThrownBy(() -> sessions.load("nothing-like-it")).hasMessageContaining("No session \"nothing-like-it\"");
  }

  private String git(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "--git-dir=" + store.shadowDirectory()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    return out;
  }
}
