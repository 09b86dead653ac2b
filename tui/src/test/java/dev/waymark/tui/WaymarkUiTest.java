package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import com.googlecode.lanterna.screen.TerminalScreen;
import com.googlecode.lanterna.terminal.Terminal;
import com.googlecode.lanterna.terminal.virtual.DefaultVirtualTerminal;
import com.googlecode.lanterna.terminal.virtual.VirtualTerminalListener;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.CheckpointStatus;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.context.CustomCommands;
import dev.waymark.core.context.FileIndex;
import dev.waymark.core.model.Cancellation;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.protocol.TurnStatus;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.McpTool;
import dev.waymark.core.tool.Tool;
import dev.waymark.core.tool.ToolResult;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.keys.KeyRouter;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole interface on a virtual terminal, with real sessions and the scripted model, read back cell by cell. */
@Tag("process")
class WaymarkUiTest {
  @TempDir Path temp;
  Path project;
  ShadowStore store;
  DefaultVirtualTerminal terminal;
  WaymarkUi ui;
  KeyMap keyMap = KeyMap.defaults();
  long contextWindow;
  FileIndex files;
  CustomCommands customCommands = CustomCommands.NONE;

  /** The interface's clock: the system's, moved forward by {@link #later}. */
  private final Clock clock = new Clock() {
    @Override
    public ZoneId getZone() {
      return ZoneId.systemDefault();
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(ahead);
    }
  };
  private volatile Duration ahead = Duration.ZERO;

  /** The session of the tab opened last. */
  private volatile TabSession lastOpened;
  private Workspace workspace;
  /** The session files the workspace wrote, in order. */
  private final List<SessionFile> saves = Collections.synchronizedList(new ArrayList<>());

  private void start(int columns, int rows, ApprovalMode approval, String script) throws Exception {
    start(columns, rows, approval, script, null);
  }

  /** Starts the interface on a new tab, or with {@code session} (an id) brought back; saves go to {@link #saves}. */
  private void start(int columns, int rows, ApprovalMode approval, String script, String session) throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    if (store == null) {
      store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    }
    terminal = new DefaultVirtualTerminal(new TerminalSize(columns, rows));
    TerminalScreen screen = new TerminalScreen(terminal);
    screen.startScreen();
    workspace = workspace(script, approval);
    workspace.onSaved(saves::add);
    ui = new WaymarkUi(screen, Runnable::run, workspace,
        new WaymarkUi.Options("scripted · test-model", approval.name().toLowerCase(), keyMap, clock,
            RunInfo.of("scripted · test-model"), customCommands, files));
    if (session == null) {
      ui.openTab();
    } else {
      ui.showOpened(workspace.open(workspace.files().load(session)));
    }
    ui.drawNow();
  }

  /** Tools offered besides the standard ones (an MCP server's, in the tests of those). */
  private List<Tool> extraTools = List.of();

  private Workspace workspace(String script, ApprovalMode approval) {
    ScriptedChatModel.Script parsed = ScriptedChatModel.parse(script.replace('\'', '"'), "test script");
    List<Tool> tools = new ArrayList<>(Tools.standard().all());
    tools.addAll(extraTools);
    return new Workspace(store, "scripted", (tree, memory) -> {
      TabSession opened = TabSession.of(tree, project, new ScriptedChatModel(parsed),
          Toolset.of(tools), new SessionSettings("test-model", approval, true, null, 50, contextWindow, 85),
          memory);
      lastOpened = opened;
      return opened;
    });
  }

  @Test
  void aLoadedSessionOpensOnTheTabThatWasShownWhenItWasSaved() throws Exception {
    start(100, 30, ApprovalMode.ASK, "{'responses':[{'text':'ok'}]}");
    Workspace other = workspace("{'responses':[]}", ApprovalMode.ASK);
    WorkspaceTab first = other.newTab();
    WorkspaceTab second = other.newTab();
    first.input("draft of the first");
    second.input("draft of the second");
    other.show(second);
    other.saveAndClose();
    ui.showOpened(workspace.open(workspace.files().load(other.id())));
    ui.drawNow();
    assertThat(input(screen())).contains("draft of the second");
  }

  /** The chat's rows of a screen: from the tab bar's rule to the input's. */
  private static List<String> chat(String screen) {
    return screen.lines().map(l -> l.replaceAll("\\s+$", "")).filter(l -> !l.isBlank()).toList();
  }

  @Test
  void aSessionBroughtBackShowsTheChatTheLiveTabShowedWithDiffsPartialAnswersAndInterruptions() throws Exception {
    String script = "{'responses':["
        + "{'whenLastUser':'write','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'first line'}}]},"
        + "{'whenLastUser':'write','text':'Wrote it.'},"
        + "{'whenLastUser':'long','text':'A long answer that the user cuts short.','chunkDelayMs':300}]}";
    start(100, 40, ApprovalMode.YOLO, script);
    send("write a");
    waitFor(s -> s.contains("Wrote it.") && s.contains("ready · #1"), "the first turn");
    send("long one");
    waitFor("A long a");
    key(KeyType.Escape);
    String live = waitFor(s -> s.contains("Interrupted.") && s.contains("ready · #2"), "the interruption");
    assertThat(live).contains("+first line", "✓", "A long a");
    String id = workspace.id();
    ui.post(new UiInput.Eof());
    ui.step(10);
    workspace.saveAndClose(); // as run() does on the way out
    workspace = null;

    start(100, 40, ApprovalMode.YOLO, script, id);
    String back = waitFor("Interrupted.");
    List<String> liveChat = chat(live);
    for (String row : liveChat.subList(2, liveChat.size() - 4)) { // the chat, without the tab bar and footer
      if (!row.contains("ready") && !row.contains("#2") && !row.contains("#1")) {
        assertThat(back).as("the row \"%s\" of the live tab", row).contains(row);
      }
    }
    assertThat(back).contains("+first line", "Wrote it.", "A long a", "Interrupted. What #2 changed so far is kept");
  }

  @Test
  void aFrameWaitingToBeDrawnIsDrawnBeforeTheLoopWaitsForInput() throws Exception {
    start(100, 30, ApprovalMode.ASK, "{'responses':[{'text':'ok'}]}");
    ui.inject(new Event.Error(ErrorKind.INTERNAL, "Shown at once.")); // changes the tab without a message in the inbox
    // a minute without input: the frame the notice asked for must not wait for any
    Assertions.assertTimeoutPreemptively(Duration.ofSeconds(20), () -> ui.step(60_000));
    assertThat(screen()).contains("Shown at once.");
  }

  @AfterEach
  void close() throws Exception {
    if (ui != null) {
      ui.post(new UiInput.Eof());
      ui.step(10);
    }
    if (workspace != null) {
      workspace.close();
    }
    if (store != null) {
      store.close();
    }
  }

  /** The screen as text, one line per row, wide characters once. */
  private String screen() {
    StringBuilder b = new StringBuilder();
    TerminalSize size = terminal.getTerminalSize();
    for (int row = 0; row < size.getRows(); row++) {
      for (int col = 0; col < size.getColumns(); col++) {
        var c = terminal.getCharacter(col, row);
        b.append(c.getCharacterString());
        if (c.isDoubleWidth()) {
          col++;
        }
      }
      b.append('\n');
    }
    return b.toString();
  }

  private String waitFor(Predicate<String> condition, String what) throws Exception {
    long end = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < end) {
      ui.step(20);
      String s = screen();
      if (condition.test(s)) {
        return s;
      }
    }
    throw new AssertionError("timed out waiting for " + what + "; the screen was:\n" + screen());
  }

  /** The first row of the input box: the one below the last rule. */
  private static String input(String screen) {
    List<String> rows = screen.lines().toList();
    for (int r = rows.size() - 1; r > 0; r--) {
      if (rows.get(r - 1).startsWith("────")) {
        return rows.get(r).strip();
      }
    }
    return "";
  }

  private String waitFor(String text) throws Exception {
    return waitFor(s -> s.contains(text), "\"" + text + "\"");
  }

  /** Waits for an approval to show, and as long as Enter waits before it answers one (a person reads it first). */
  private String readApproval(String text) throws Exception {
    String s = waitFor(text);
    ahead = ahead.plus(KeyRouter.APPROVAL_READING_TIME).plusMillis(50); // the interface's clock, not a sleep
    return s;
  }

  private void type(String text) {
    text.codePoints().forEach(cp -> ui.post(new UiInput.Text(new String(Character.toChars(cp)))));
  }

  private void key(KeyType type) {
    ui.post(new UiInput.Key(new KeyStroke(type)));
  }

  private void ctrl(char c) {
    ui.post(new UiInput.Key(new KeyStroke(c, true, false)));
  }

  private void send(String text) {
    type(text);
    key(KeyType.Enter);
  }

  @Test
  void aCustomCommandSendsItsFilesTextWithTheArgumentsAndAnUnknownOneSaysSo() throws Exception {
    Path commands = Files.createDirectories(temp.resolve("config/waymark/commands"));
    Files.writeString(commands.resolve("review.md"), "# Review a file\nReview $ARGUMENTS for bugs; say which lines.\n");
    customCommands = CustomCommands.of(Optional.empty(), commands.getParent());
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'expectLastUser':'Review src/a.txt for bugs; say which lines.',"
        + "'text':'Reviewed it.'}]}");

    send("/review src/a.txt");
    waitFor(s -> s.contains("Reviewed it.") && s.contains("ready · #1"), "the custom command's turn");

    send("/nosuch thing");
    waitFor("Unknown command /nosuch");
    send("/help");
    waitFor(s -> s.contains("Esc/q close"), "the help");
    // one page at a time, each drawn before the next: frames are throttled, so a page not waited for is never seen
    for (int i = 0; i < 60 && !screen().contains("/review [arguments]") && !screen().contains("Esc or q closes this."); i++) {
      String before = screen();
      key(KeyType.PageDown);
      waitFor(s -> !s.equals(before), "the next page of the help");
    }
    assertThat(screen()).contains("/review [arguments]  Review a file");
  }

  @Test
  void theFooterShowsHowFullTheWindowIsAndAPromptPastTheThresholdCompactsFirstInACheckpointOfItsOwn() throws Exception {
    contextWindow = 10_000;
    start(120, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'first','text':'First answer.','usage':{'inputTokens':8800,'outputTokens':300}},"
        + "{'whenLastUser':'Summarise our conversation','text':'Summary: we said hello.','usage':{'inputTokens':9100,'outputTokens':800}},"
        + "{'whenLastUser':'second','text':'Second answer.','usage':{'inputTokens':1500,'outputTokens':100}}]}");

    send("first");
    String full = waitFor(s -> s.contains("First answer.") && s.contains("ready · #1"), "the first turn");
    assertThat(full).contains("ctx 9.1k (91%)");

    send("second");
    String after = waitFor(s -> s.contains("Second answer.") && s.contains("ready · #3"), "the compaction and the prompt");
    assertThat(after).contains("of the model's 10k-token window", "Summary: we said hello.", "ctx 1.6k (16%)");

    send("/undo");
    waitFor(s -> s.contains("ready · #2"), "undoing the prompt");
    send("/undo");
    String undone = waitFor(s -> s.contains("ready · #1") && s.contains("ctx ~"), "undoing the compaction");
    assertThat(undone).containsPattern("ctx ~\\d");
  }

  @Test
  void typingAtOpensTheFileFinderAndTheChosenFileGoesToTheModelWithThePrompt() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    Files.createDirectories(project.resolve("src/app"));
    Files.writeString(project.resolve("src/app/TabSession.java"), "class TabSession {}\n");
    Files.writeString(project.resolve("src/app/Tabs.java"), "class Tabs {}\n");
    Files.writeString(project.resolve("notes.md"), "notes\n");
    files = new FileIndex(project);
    files.refreshNow();
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'expectLastUser':'--- @src/app/Tabs.java ---\\nclass Tabs {}',"
        + "'text':'Tabs is empty.'}]}");

    type("explain @tabs");
    String finder = waitFor(s -> s.contains("@ files") && s.contains("src/app/Tabs.java"), "the finder");
    assertThat(finder).contains("▸ src/app/Tabs.java", "src/app/TabSession.java").doesNotContain("notes.md");
    key(KeyType.ArrowDown);
    key(KeyType.ArrowUp);
    key(KeyType.Enter); // inserts the path, does not send
    String inserted = waitFor(s -> s.contains("explain @src/app/Tabs.java"), "the inserted path");
    assertThat(inserted).doesNotContain("@ files");

    type("please");
    key(KeyType.Enter);
    waitFor(s -> s.contains("Tabs is empty.") && s.contains("ready · #1"), "the answer");

    type("and @zz");
    ui.drawNow();
    assertThat(screen()).doesNotContain("@ files");
    key(KeyType.Backspace);
    key(KeyType.Backspace);
    waitFor(s -> s.contains("@ files") && s.contains("notes.md"), "every top entry for a bare @");
    key(KeyType.Escape);
    waitFor(s -> !s.contains("@ files"), "Esc closing the finder");
  }

  @Test
  void theProjectIsListedForTheFinderOnlyOnceAtIsTypedNeverAtTheStart() throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("notes.md"), "notes\n");
    files = new FileIndex(project);
    start(100, 30, ApprovalMode.YOLO, "{'responses':[]}");
    ui.drawNow();
    assertThat(files.walksStarted()).as("a Waymark nobody asked for files walks nothing").isZero();

    type("@");
    waitFor(s -> s.contains("@ files") && s.contains("notes.md"), "the finder, once the first listing is done");
    assertThat(files.walksStarted()).isEqualTo(1);
  }

  @Test
  void initAsksTheAgentToWriteAgentsMdInATurnThatUndoTakesBack() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'expectLastUser':'write a starting AGENTS.md','toolCalls':[{'name':'write_file','arguments':"
        + "{'path':'AGENTS.md','content':'# Agents\\nRun mvn test.\\n'}}]},"
        + "{'text':'Wrote AGENTS.md.'}]}");

    send("/init");
    waitFor(s -> s.contains("Wrote AGENTS.md.") && s.contains("ready · #1"), "the /init turn");
    assertThat(Files.readString(project.resolve("AGENTS.md"))).isEqualTo("# Agents\nRun mvn test.\n");

    send("/undo");
    waitFor(s -> !Files.exists(project.resolve("AGENTS.md")), "the undo");
  }

  @Test
  void aPromptStreamsItsAnswerAndTheRailShowsTheCheckpoint() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'Hello **there**, I can help.'}]}");
    String first = screen();
    assertThat(first).contains("ready · #0", "scripted · test-model", "Ask for a change");

    send("hello");
    String s = waitFor("ready · #1");
    assertThat(s).contains("› hello", "Hello there, I can help.", "#1 · ");
    assertThat(s.lines().skip(1).limit(5).anyMatch(l -> l.stripTrailing().endsWith("◇"))).as("the live dot on the rail").isTrue();
  }

  @Test
  void aPromptIsSavedWithTheSessionBeforeItsTurnCanWriteAnything() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1'}}]},"
        + "{'text':'Wrote it.'}]}");

    send("write a");
    waitFor(s -> s.contains("Wrote it.") && s.contains("ready · #1"), "the turn");
    Function<SessionFile, String> described = file -> file.tabs().get(0).checkpoints().size()
        + " checkpoint(s), input \"" + file.tabs().get(0).input() + "\"";
    waitFor(s -> saves.size() >= 2 && saves.get(saves.size() - 1).tabs().get(0).checkpoints().size() == 2, "the autosave");
    assertThat(saves).as("a kill before the turn's own autosave still finds the tab and the prompt")
        .first().extracting(described).isEqualTo("1 checkpoint(s), input \"write a\"");
    assertThat(saves).as("then autosaved with the prompt in the conversation").last().extracting(described)
        .asString().endsWith("input \"\"");
  }

  @Test
  void ctrlBViewsAnEarlierCheckpointWithoutTouchingFilesAndCtrlFReturns() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'2'}}]},"
        + "{'whenLastUser':'two','text':'Wrote two.'}]}");
    send("one");
    waitFor(s -> s.contains("Wrote one.") && s.contains("ready · #1"), "the first turn");
    send("two");
    waitFor(s -> s.contains("Wrote two.") && s.contains("ready · #2"), "the second turn");

    ctrl('b');
    String viewing = waitFor("↶ Viewing checkpoint #1, send a message to rewind here.");
    assertThat(viewing).contains("viewing #1").doesNotContain("Wrote two.");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("2");

    ctrl('f');
    String live = waitFor("ready · #2");
    assertThat(live).doesNotContain("Viewing checkpoint").contains("Wrote two.");
  }

  @Test
  void enterWhileViewingFollowedAtOnceByCtrlBBranchesFromTheCheckpointThatWasOnScreen() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'2'}}]},"
        + "{'whenLastUser':'two','text':'Wrote two.'},"
        + "{'whenLastUser':'three','text':'Branched.'}]}");
    send("one");
    waitFor(s -> s.contains("Wrote one.") && s.contains("ready · #1"), "the first turn");
    send("two");
    waitFor(s -> s.contains("Wrote two.") && s.contains("ready · #2"), "the second turn");
    ctrl('b');
    waitFor("Viewing checkpoint #1");

    send("three");
    ctrl('b'); // in the same step as the Enter, before the branch can have started
    // the view then moves back before the branch starts or after it ends: either way the branch comes from #1
    waitFor(s -> lastOpened.snapshot().live() == 3
        && lastOpened.snapshot().checkpoint(3).map(c -> c.status() != CheckpointStatus.RUNNING)
            .orElse(false), "the branch");
    assertThat(lastOpened.snapshot().checkpoint(3).orElseThrow().parent()).isEqualTo(1);
    assertThat(Files.readString(project.resolve("a.txt"))).as("the files of #1, the checkpoint on screen").isEqualTo("1");
  }

  @Test
  void undoDimsTheUndoneTurnUnderASeparatorAndPutsItsPromptBackInTheInput() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'make','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'x'}}]},"
        + "{'whenLastUser':'make','text':'Made it.'}]}");
    send("make a.txt");
    waitFor(s -> s.contains("Made it.") && s.contains("ready · #1"), "the turn"); // the answer shows before the checkpoint is committed
    send("/checkpoint undo");
    String s = waitFor("↶ Rewound past this point.");
    assertThat(s).contains("Restored #0", "› make a.txt");
    assertThat(Files.exists(project.resolve("a.txt"))).isFalse();
    assertThat(s.lines().filter(l -> l.startsWith("› make a.txt")).count()).as("in the chat and in the input").isEqualTo(2);

    send("/checkpoint redo");
    waitFor(s2 -> s2.contains("ready · #1") && s2.contains("Restored #1"), "the redo");
    assertThat(Files.readString(project.resolve("a.txt"))).as("the command replaced the refilled prompt").isEqualTo("x");
    assertThat(screen()).doesNotContain("#2");
  }

  @Test
  void refilledTextCanBeEditedAfterAMove() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'Made it.'},{'text':'Again.'}]}");
    send("make");
    waitFor("ready · #1");
    send("/checkpoint undo");
    // the chat shows "› make" already: the signal is the prompt back in the input, a second such line
    waitFor(s -> s.contains("Restored #0") && s.lines().filter(l -> l.startsWith("› make")).count() == 2, "the refill");
    key(KeyType.End);
    send(" more");
    String s = waitFor("Again.");
    assertThat(s).contains("› make more");
  }

  @Test
  void ctrlCInterruptsARunningTurnAndOnlyAnIdleEmptyInputArmsTheExit() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'delayMs':60000,'text':'never'}]}");
    send("go");
    waitFor("working");
    ctrl('c');
    String interrupted = waitFor(s -> s.contains("Interrupted.") && s.contains("ready · #1"), "the interrupt");
    assertThat(ui.finished()).isFalse();
    assertThat(interrupted).as("the hint goes once the chat says it is done").doesNotContain("Interrupting…", "again to exit");
    ctrl('c');
    waitFor("Press Ctrl+C again to exit.");
    ctrl('c');
    ui.step(20);
    assertThat(ui.finished()).isTrue();
  }

  @Test
  void enterWhileViewingDuringARunningTurnSteersAndTheTabIsLiveWhenTheTurnEnds() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'whenLastUser':'one','text':'First.'},"
        + "{'whenLastUser':'slow','delayMs':3000,'text':'Slow done.'},{'text':'Steered.'}]}");
    send("one");
    waitFor("ready · #1");
    send("slow");
    waitFor("working");
    ctrl('b');
    String viewing = waitFor("Viewing checkpoint #1");
    assertThat(viewing).contains("viewing #1", "Enter steers it and ends viewing");
    send("keep going");
    String steering = waitFor("the message steers it");
    assertThat(steering).contains("Back to live");
    waitFor(s -> !s.contains("Viewing checkpoint"), "live again");

    ctrl('b');
    waitFor("Viewing checkpoint #1");
    String after = waitFor(s -> s.contains("ready · #2"), "the turn to end");
    assertThat(after).as("the next message must not branch by surprise").doesNotContain("Viewing checkpoint");
  }

  @Test
  void quittingWhileAShellCommandsBackgroundProcessRunsSaysItWillBeStoppedAndAsks() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'toolCalls':[{'name':'run_shell','arguments':"
        + "{'command':'(sleep 29.57) > /dev/null 2>&1 &'}}]},{'text':'Started it.'}]}");
    send("start a server");
    waitFor(s -> s.contains("Started it.") && s.contains("ready · #1"), "the turn");

    ctrl('c');
    waitFor("Press Ctrl+C again to exit and stop 1 background process.");
    send("/quit");
    waitFor("1 background process that a shell command started is still running");
    key(KeyType.Enter); // no: stays
    ui.step(20);
    assertThat(ui.finished()).isFalse();
    send("/quit");
    waitFor("Quit anyway?");
    send("y");
    ui.step(20);
    assertThat(ui.finished()).isTrue();
  }

  @Test
  void aShellCommandShowsTheFilesItChangedAndCtrlOExpandsItsOutput() throws Exception {
    start(100, 40, ApprovalMode.YOLO, "{'responses':[{'toolCalls':[{'name':'run_shell','arguments':"
        + "{'command':'seq 101 103; for f in a b c d e; do echo $f > $f.txt; done'}}]},"
        + "{'text':'Ran it.'}]}");
    send("make files");
    String folded = waitFor(s -> s.contains("Ran it.") && s.contains("ready · #1"), "the turn");
    assertThat(folded).contains("⎿ 101 (+", "5 files changed", "created a.txt", "… 1 more (Ctrl+O expands)")
        .doesNotContain("102", "created e.txt");

    ctrl('o');
    String expanded = waitFor("created e.txt");
    assertThat(expanded).contains("102", "[exit code 0]").doesNotContain("more (Ctrl+O");
    ctrl('o');
    waitFor(s -> !s.contains("created e.txt"), "folded again");
  }

  @Test
  void anMcpToolAsksWithItsServerToolAndArgumentsAndListsTheFilesItsServerWrote() throws Exception {
    McpTool.Server notes = new McpTool.Server() {
      @Override
      public String name() {
        return "notes";
      }

      @Override
      public ToolResult call(String tool, JsonNode arguments,
          Cancellation cancellation) {
        try {
          Files.writeString(project.resolve(arguments.path("name").asText()), "a note\n");
        } catch (IOException e) {
          return ToolResult.error(ErrorKind.STORE_IO, e.toString());
        }
        return ToolResult.ok("noted");
      }
    };
    extraTools = List.of(new McpTool(notes, "write_note", "Writes a note", null, false,
        ToolSettings.DEFAULTS));
    start(120, 30, ApprovalMode.AUTO_EDIT, "{'responses':["
        + "{'toolCalls':[{'name':'notes__write_note','arguments':{'name':'n.txt'}}]},"
        + "{'text':'Noted.'}]}");
    send("note it");
    String asking = readApproval("Allow notes__write_note");
    assertThat(asking).contains("Allow notes__write_note: MCP server notes, tool write_note {\"name\":\"n.txt\"}",
        "Allow mcp__notes__write_note from now on…");
    key(KeyType.Enter);
    String done = waitFor(s -> s.contains("Noted.") && s.contains("ready · #1"), "the turn");
    assertThat(done).contains("⎿ noted", "1 file changed", "created n.txt");
    assertThat(Files.readString(project.resolve("n.txt"))).isEqualTo("a note\n");
    send("/mcp");
    waitFor("No MCP servers are configured");
  }

  @Test
  void anApprovalPromptShowsTheDiffAndEnterAllowsTheCallOnce() throws Exception {
    start(100, 30, ApprovalMode.ASK, "{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'hello\\n'}}]},"
        + "{'text':'Written.'}]}");
    send("go");
    String asking = readApproval("Allow write_file: write a.txt?");
    assertThat(asking).contains("+hello", "› Allow once", "Allow write_file from now on…", "Deny, and tell the model why…",
        "↑↓ Enter answer · Esc stops the turn", "awaiting your approval");
    key(KeyType.Enter);
    waitFor("Written.");
    assertThat(Files.readString(project.resolve("a.txt"))).isEqualTo("hello\n");
  }

  private static final String TOUCH_THEN_DONE = "{'responses':["
      + "{'toolCalls':[{'name':'run_shell','arguments':{'command':'touch approved.txt'}}]},"
      + "{'text':'Model called again.'},{'text':'And again.'}]}";

  @Test
  void aMessageTypedWhileAnApprovalWaitsGoesToTheInputAndAnswersNothing() throws Exception {
    start(100, 30, ApprovalMode.ASK, TOUCH_THEN_DONE);
    send("go");
    readApproval("Allow run_shell: touch approved.txt?");
    String typed = "actually wait, yes no always";
    type(typed);
    String s = waitFor(t -> input(t).equals("› " + typed), "every letter in the input");
    assertThat(s).contains("typing goes to the input (Enter steers); empty it to answer", "Allow run_shell: touch approved.txt?");
    key(KeyType.ArrowDown); // the input's key now, not the approval's
    key(KeyType.Enter); // steers: queued for the turn, which still waits
    waitFor("queued: " + typed);
    ui.step(50);
    assertThat(project.resolve("approved.txt")).doesNotExist();
    assertThat(lastOpened.permissions().entries()).isEmpty();
    assertThat(screen()).contains("› Allow once", "Allow run_shell: touch approved.txt?");
  }

  @Test
  void allowingFromNowOnTakesASecondStepAndKeepsTheCommandsPrefixNotTheTool() throws Exception {
    start(100, 30, ApprovalMode.ASK, "{'responses':["
        + "{'toolCalls':[{'name':'run_shell','arguments':{'command':'echo hi'}}]},"
        + "{'toolCalls':[{'name':'run_shell','arguments':{'command':'echo hi again'}}]},"
        + "{'toolCalls':[{'name':'run_shell','arguments':{'command':'touch other.txt'}}]},"
        + "{'text':'Done.'}]}");
    send("go");
    String asking = readApproval("Allow run_shell: echo hi?");
    assertThat(asking).contains("Allow run_shell(echo hi:*) from now on…");
    key(KeyType.ArrowDown);
    key(KeyType.Enter);
    String scope = waitFor("without asking, kept in:");
    assertThat(scope).contains("› this session only (all its tabs)", "the project's settings", "your user settings");
    key(KeyType.Enter);
    readApproval("Allow run_shell: touch other.txt?");
    assertThat(screen()).contains("Allowed run_shell(echo hi:*) from now on (this session");
    assertThat(lastOpened.permissions().entries()).extracting(Object::toString)
        .containsExactly("allow run_shell(echo hi:*)  (this session)");
    key(KeyType.Escape);
    waitFor("Interrupted.");
    assertThat(project.resolve("other.txt")).doesNotExist();

    send("/permissions");
    waitFor("1  allow run_shell(echo hi:*)  (this session)");
    send("/permissions remove 2");
    waitFor("There is no rule 2; /permissions lists 1.");
    send("/permissions remove 1");
    waitFor("Removed: allow run_shell(echo hi:*)  (this session).");
    assertThat(lastOpened.permissions().entries()).isEmpty();
    send("/permissions");
    waitFor("No allow or deny rules.");
  }

  @Test
  void aRuleThatCannotBeSavedAllowsNothingAndSaysWhy() throws Exception {
    start(100, 30, ApprovalMode.ASK, TOUCH_THEN_DONE);
    send("go");
    readApproval("Allow run_shell: touch approved.txt?");
    key(KeyType.ArrowDown);
    key(KeyType.Enter);
    waitFor("kept in:");
    key(KeyType.ArrowDown);
    key(KeyType.Enter); // this workspace saves rules nowhere
    String s = waitFor("could not be kept in project settings");
    assertThat(s).contains("kept in:");
    assertThat(project.resolve("approved.txt")).doesNotExist();
    key(KeyType.Escape); // back to the first step
    waitFor("› Allow run_shell(touch:*) from now on…");
    key(KeyType.Escape);
    waitFor(t -> t.contains("Interrupted.") && t.contains("ready · #1"), "the turn to stop");
  }

  @Test
  void denyingTakesALineForTheModel() throws Exception {
    start(100, 30, ApprovalMode.ASK, TOUCH_THEN_DONE);
    send("go");
    readApproval("Allow run_shell: touch approved.txt?");
    key(KeyType.ArrowDown);
    key(KeyType.ArrowDown);
    key(KeyType.Enter);
    waitFor("Tell the model why (optional):");
    type("use the other file, not this");
    waitFor("why? › use the other file, not this");
    key(KeyType.Enter);
    String s = waitFor("Model called again.");
    assertThat(s).contains("The user denied this call: use the other file, not this");
    assertThat(project.resolve("approved.txt")).doesNotExist();
  }

  @Test
  void escAtAnApprovalStopsTheTurnAndTheModelIsNotCalledAgain() throws Exception {
    start(100, 30, ApprovalMode.ASK, TOUCH_THEN_DONE);
    send("go");
    readApproval("Allow run_shell: touch approved.txt?");
    key(KeyType.Escape);
    String s = waitFor(t -> t.contains("Interrupted.") && t.contains("ready · #1"), "the turn to stop");
    ui.step(100);
    assertThat(screen()).doesNotContain("Model called again.");
    assertThat(project.resolve("approved.txt")).doesNotExist();
    assertThat(s).doesNotContain("Allow run_shell");
  }

  @Test
  void aTabWaitingForApprovalIsMarkedCountedInTheFooterAndRingsTheBellOnce() throws Exception {
    start(100, 30, ApprovalMode.ASK, TOUCH_THEN_DONE);
    AtomicInteger bells = new AtomicInteger();
    terminal.addVirtualTerminalListener(new VirtualTerminalListener() {
      @Override
      public void onFlush() { }

      @Override
      public void onBell() {
        bells.incrementAndGet();
      }

      @Override
      public void onClose() { }

      @Override
      public void onResized(Terminal t, TerminalSize size) { }
    });
    send("go");
    readApproval("Allow run_shell: touch approved.txt?");
    ctrl('t');
    String other = waitFor("ready · #0");
    List<String> rows = other.lines().toList();
    assertThat(rows.get(0)).contains(" 1 go ? ");
    assertThat(rows.get(rows.size() - 1)).startsWith(" ? tab 1 awaits approval");
    assertThat(bells.get()).isEqualTo(1);
    for (int i = 0; i < 5; i++) {
      ui.step(20);
    }
    assertThat(bells.get()).as("once, not with every frame").isEqualTo(1);
  }

  @Test
  void theBellCanBeTurnedOff() throws Exception {
    start(100, 30, ApprovalMode.ASK, TOUCH_THEN_DONE);
    ui.bellOnApproval(false);
    AtomicInteger bells = new AtomicInteger();
    terminal.addVirtualTerminalListener(new VirtualTerminalListener() {
      @Override
      public void onFlush() { }

      @Override
      public void onBell() {
        bells.incrementAndGet();
      }

      @Override
      public void onClose() { }

      @Override
      public void onResized(Terminal t, TerminalSize size) { }
    });
    send("go");
    readApproval("Allow run_shell: touch approved.txt?");
    assertThat(bells.get()).isZero();
  }

  @Test
  void anEnterPressedAsTheApprovalAppearsAnswersNothing() throws Exception {
    start(100, 30, ApprovalMode.ASK, "{'responses':[]}");
    ui.inject(new Event.TurnStarted(1, 0, "go"));
    ui.inject(new Event.ToolCallProposed(1,
        new ToolCallView("c1", "run_shell", "{\"command\":\"touch x\"}"), "touch x", "", true));
    key(KeyType.Enter); // the second Enter of a hurried "send"
    String s = waitFor("read it, then press Enter again");
    assertThat(s).contains("Allow run_shell: touch x?", "› Allow once");
    ahead = KeyRouter.APPROVAL_READING_TIME;
    key(KeyType.Enter);
    waitFor(t -> !t.contains("Allow run_shell: touch x?"), "the approval to be answered once read");
  }

  @Test
  void aLongCommandIsShownWholeWrappedInTheApproval() throws Exception {
    String tail = "and-the-very-end-of-it";
    String command = "echo " + "word ".repeat(40) + tail;
    start(80, 30, ApprovalMode.ASK, "{'responses':[{'toolCalls':[{'name':'run_shell','arguments':{'command':'" + command
        + "'}}]},{'text':'ok'}]}");
    send("go");
    String s = readApproval("Allow run_shell: echo word");
    assertThat(s).contains(tail + "?").doesNotContain("…?");
  }

  @Test
  void anUnknownCommandIsAOneLineErrorAndHelpListsKeysAndCommands() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[]}");
    send("/frobnicate");
    waitFor("Unknown command /frobnicate");
    send("/help");
    String help = waitFor("Commands");
    assertThat(help).contains("ctrl+b");
    StringBuilder seen = new StringBuilder(help);
    for (int page = 0; page < 8 && !seen.toString().contains("answered only with ↑ ↓ Enter and Esc"); page++) {
      String before = screen();
      key(KeyType.PageDown);
      seen.append(waitFor(s -> !s.equals(before), "the next page of the help"));
    }
    assertThat(seen.toString()).contains("/checkpoint undo [N]", "/tab reopen [N]", "/undo [N]", "/rewind",
        "/checkpoint revert", "/permissions remove N", "answered only with ↑ ↓ Enter and Esc");
    key(KeyType.Escape);
    waitFor(s -> !s.contains("/checkpoint undo [N]"), "the help to close");
  }

  @Test
  void tabCompletesCommands() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[]}");
    type("/che");
    key(KeyType.Tab);
    waitFor("› /checkpoint");
    type("re");
    waitFor(s -> s.contains("/checkpoint redo [--force]") && s.contains("/checkpoint restore N"), "the menu of both");
    key(KeyType.Tab); // the menu's selected command, as in the leading agents
    waitFor("› /checkpoint redo");
  }

  @Test
  void rewindNamesARevertCheckpointByWhatItDidNotByAnEmptyPrompt() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'}]}");
    send("one");
    waitFor(s -> s.contains("Wrote one.") && s.contains("ready · #1"), "the first turn");
    send("/revert 1");
    waitFor(s -> s.contains("Reverted #1") && s.contains("ready · #2"), "the revert");

    send("/rewind");
    String list = waitFor("Rewind: go back to before a prompt");
    assertThat(list).contains("▸ #2  ↺ Reverted #1", "#1  › one").doesNotContain("#2  › ");
  }

  @Test
  void rewindListsThePromptsAndEnterGoesBackToBeforeTheChosenOne() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'2'}}]},"
        + "{'whenLastUser':'two','text':'Wrote two.'}]}");
    send("one");
    waitFor(s -> s.contains("Wrote one.") && s.contains("ready · #1"), "the first turn");
    send("two");
    waitFor(s -> s.contains("Wrote two.") && s.contains("ready · #2"), "the second turn");

    send("/rewind");
    String list = waitFor("Rewind: go back to before a prompt");
    assertThat(list).contains("▸ #2  › two", "#1  › one", "back to #0");
    key(KeyType.ArrowDown);
    key(KeyType.Enter);
    String back = waitFor(s -> s.contains("Restored #0") && s.contains("ready · #0"), "the rewind");
    assertThat(Files.exists(project.resolve("a.txt"))).isFalse();
    assertThat(back.lines().filter(l -> l.startsWith("› one")).count()).as("the chosen prompt is back in the input").isEqualTo(2);

    ctrl('c');
    key(KeyType.Escape);
    key(KeyType.Escape);
    waitFor(s -> s.contains("Nothing to rewind"), "Esc Esc on an idle, empty input: the (empty) rewind list");
  }

  @Test
  void ctrlTOpensASecondTabWithItsOwnCheckpointsAndAltNumbersSwitch() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'First tab answer.'}]}");
    send("in tab one");
    waitFor("First tab answer.");
    ctrl('t');
    String second = waitFor("ready · #0");
    assertThat(second).doesNotContain("First tab answer.").contains(" 1 ", " 2 ");
    ui.post(new UiInput.Key(new KeyStroke('1', false, true)));
    waitFor("First tab answer.");
  }

  @Test
  void aPasteWithNewlinesStaysInTheInput() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'ok'}]}");
    ui.post(new UiInput.Paste("line one\nline two"));
    String s = waitFor("line two");
    assertThat(s).contains("› line one").doesNotContain("ready · #1");
  }

  @Test
  void aTerminalTooSmallSaysSoAndGrowingBackRestoresTheScreen() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[]}");
    terminal.setTerminalSize(new TerminalSize(50, 10));
    ui.wake();
    waitFor("needs at least 60×15");
    terminal.setTerminalSize(new TerminalSize(60, 15));
    ui.wake();
    String s = waitFor("ready · #0");
    assertThat(s.lines().count()).isEqualTo(15);
  }

  @Test
  void keysTypedIntoAWindowTooSmallToShowTheInputNeverSendAPrompt() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'Answered.'}]}");
    terminal.setTerminalSize(new TerminalSize(50, 10));
    ui.wake();
    waitFor("needs at least 60×15");
    send("rm everything");
    ui.step(50);
    terminal.setTerminalSize(new TerminalSize(80, 20));
    ui.wake();
    String s = waitFor("ready · #0");
    assertThat(s).doesNotContain("rm everything", "Answered.").contains("Ask for a change");
    ctrl('d');
    ui.step(20);
    assertThat(ui.finished()).isTrue();
  }

  @Test
  void ctrlDQuitsAWindowTooSmall() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[]}");
    terminal.setTerminalSize(new TerminalSize(50, 10));
    ui.wake();
    waitFor("Ctrl+D quits");
    ctrl('d');
    ui.step(20);
    assertThat(ui.finished()).isTrue();
  }

  @Test
  void ctrlWOnTextDeletesTheWordBeforeTheCursorAndOnAnEmptyInputClosesTheTab() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[]}");
    type("fix the build");
    waitFor("› fix the build");
    ctrl('w');
    waitFor(s -> s.contains("› fix the ") && !s.contains("build"), "the last word deleted, as in readline");
    assertThat(ui.finished()).isFalse();
    ctrl('w');
    ctrl('w');
    waitFor(s -> !s.contains("› fix"), "the input emptied word by word");
    assertThat(ui.finished()).as("the tab stays while its input had text").isFalse();
    ctrl('w');
    ui.step(20);
    assertThat(ui.finished()).as("on an empty input Ctrl+W closes the tab, the last one quitting").isTrue();
  }

  @Test
  void ctrlDUnderTheHelpQuitsAsEverywhereElseOnAnEmptyInput() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[]}");
    send("/help");
    waitFor(s -> s.contains("Esc/q close"), "the help");
    ctrl('d');
    ui.step(20);
    assertThat(ui.finished()).as("Ctrl+D quits under the help, as the help itself says").isTrue();
  }

  @Test
  void closingATabThatRunsAsksFirst() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'delayMs':20000,'text':'slow'}]}");
    send("go");
    waitFor("working");
    ctrl('w');
    waitFor("Close it anyway?");
    type("n");
    waitFor(s -> s.contains("working") && !s.contains("Close it anyway"), "the question to go away");
    assertThat(ui.finished()).isFalse();
    ctrl('w');
    waitFor("Close it anyway?");
    type("y");
    ui.step(20);
    assertThat(ui.finished()).as("closing the last tab quits").isTrue();
  }

  @Test
  void closingATabWithHistoryAsksAndKeepsItInTheSessionToReopen() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'First tab answer.'}]}");
    send("in tab one");
    waitFor(s -> s.contains("First tab answer.") && s.contains("ready · #1"), "the turn");
    ctrl('t');
    waitFor("ready · #0");
    ui.post(new UiInput.Key(new KeyStroke('1', false, true)));
    waitFor("First tab answer.");

    ctrl('w');
    waitFor("Close tab 1 (1 checkpoint)? It stays in the session: /tab reopen brings it back.");
    type("y");
    String closed = waitFor(s -> !s.contains("First tab answer.") && !s.contains("Close tab"), "the tab to close");
    assertThat(closed).doesNotContain(" 2 ");
    saves.clear();
    send("/session save");
    waitFor("Saved session");
    SessionFile last = saves.get(saves.size() - 1);
    assertThat(last.tabs()).extracting(SessionFile.Tab::isClosed).containsExactly(false, true);
    assertThat(last.activeTab()).as("the tab shown is the active one, never the closed one")
        .isEqualTo(last.tabs().get(0).tabId());

    send("/tab");
    waitFor("Closed tabs (/tab reopen N):");
    send("/tab reopen");
    String back = waitFor("First tab answer.");
    assertThat(back).contains(" 1 ", " 2 ", "Tab reopened.");
    send("/tab reopen");
    waitFor("No closed tab to reopen");
  }

  @Test
  void quittingWithAnApprovalWaitingAsksFirst() throws Exception {
    start(100, 30, ApprovalMode.ASK, "{'responses':[{'toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1'}}]},"
        + "{'text':'Written.'}]}");
    send("go");
    readApproval("Allow write_file: write a.txt?");
    ctrl('d');
    waitFor("A tool call waits for your approval in tab 1. Quit anyway?");
    type("n");
    waitFor(s -> !s.contains("Quit anyway?"), "the question to go");
    assertThat(ui.finished()).isFalse();
    ctrl('d');
    waitFor("Quit anyway?");
    type("y");
    ui.step(20);
    assertThat(ui.finished()).isTrue();
  }

  @Test
  void enterOrAnyKeyButYAnswersNoToAYesNoQuestion() throws Exception {
    start(100, 30, ApprovalMode.ASK, "{'responses':[{'toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1'}}]},"
        + "{'text':'Written.'}]}");
    send("go");
    readApproval("Allow write_file: write a.txt?");
    ctrl('d');
    waitFor("Quit anyway?");
    key(KeyType.Enter);
    waitFor(s -> !s.contains("Quit anyway?"), "Enter to answer the [y/N] question");
    assertThat(ui.finished()).as("Enter takes the default shown, N").isFalse();
    ctrl('d');
    waitFor("Quit anyway?");
    type("x");
    waitFor(s -> !s.contains("Quit anyway?"), "x to answer the question");
    assertThat(ui.finished()).isFalse();
    ctrl('d');
    waitFor("Quit anyway?");
    key(KeyType.ArrowDown);
    waitFor(s -> !s.contains("Quit anyway?"), "an arrow to answer the question");
    assertThat(ui.finished()).isFalse();
    assertThat(screen()).as("the approval still waits").contains("Allow write_file: write a.txt?");
    ctrl('d');
    waitFor("Quit anyway?");
    type("Y");
    ui.step(20);
    assertThat(ui.finished()).isTrue();
  }

  @Test
  void anUndoneTurnsPromptIsNotLostWhenTheUserTypedDuringTheRestore() throws Exception {
    start(100, 30, ApprovalMode.YOLO, "{'responses':[{'text':'Made it.'}]}");
    send("make a thing");
    waitFor("ready · #1");
    send("/undo");
    type("new text"); // typed before the restore's event arrives
    String s = waitFor("Restored #0");
    assertThat(s).contains("↑ brings back the undone prompt");
    assertThat(input(s)).isEqualTo("› new text");
    key(KeyType.ArrowUp);
    waitFor(t -> input(t).equals("› make a thing"), "the undone prompt first, before /undo");
    key(KeyType.ArrowDown);
    waitFor(t -> input(t).equals("› new text"), "what was typed, back");
  }

  @Test
  void anApprovalInANarrowWindowStillShowsAllThreeAnswers() throws Exception {
    start(60, 16, ApprovalMode.ASK, "{'responses':[{'toolCalls':[{'name':'write_file','arguments':{'path':'🚀 rocket.txt','content':'1'}}]},"
        + "{'text':'Written.'}]}");
    send("go");
    String s = readApproval("Allow write_file");
    assertThat(s).contains("Allow once", "Allow write_file from now on…", "Deny, and tell the model why…",
        "↑↓ Enter answer · Esc stops the turn");
  }

  @Test
  void aHugePasteIsFoldedInTheInputAndSentWhole() throws Exception {
    start(80, 20, ApprovalMode.YOLO, "{'responses':[{'expectLastUser':'line 4999 🚀 日本語','text':'Read all of it.'}]}");
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 5000; i++) {
      text.append("line ").append(i).append(" 🚀 日本語\n");
    }
    type("Why? ");
    ui.post(new UiInput.Paste(text.toString()));
    type(" thanks");
    waitFor(s -> input(s).equals("› Why? [Pasted text #1 +5000 lines] thanks"), "the paste folded in the input");
    assertThat(screen()).doesNotContain("line 4999");
    key(KeyType.Enter);
    waitFor("Read all of it.");
  }

  @Test
  void aLongTypedDraftStaysInTheInputAndTheRuleSaysHowMuchIsThere() throws Exception {
    start(80, 20, ApprovalMode.YOLO, "{'responses':[]}");
    StringBuilder text = new StringBuilder("line 0");
    for (int i = 1; i < 30; i++) {
      text.append("\nline ").append(i);
    }
    type(text.toString()); // typed, not pasted: it is not folded
    assertThat(waitFor("30 lines")).contains("line 29");
  }

  @Test
  void editingKeysGoThroughTheKeyMapSoTheyCanBeRebound() throws Exception {
    keyMap = KeyMap.defaults().withOverrides(Map.of("line-start", List.of("ctrl+x"), "kill-to-end",
        List.of()));
    start(80, 20, ApprovalMode.YOLO, "{'responses':[]}");
    type("world");
    key(KeyType.Home); // no longer bound: nothing
    type("!");
    ctrl('x');
    type("hello ");
    ctrl('k'); // unbound: nothing
    waitFor(s -> input(s).equals("› hello world!"), "the rebound key to move the cursor");
    ui.post(new UiInput.Key(new KeyStroke(KeyType.ArrowRight, false, false, true))); // Shift+→ moves as → does
    key(KeyType.Delete);
    waitFor(s -> input(s).equals("› hello wrld!"), "Shift+→ then Delete");
  }

  @Test
  void ctrlCClearsTheInputButUpBringsTheClearedTextBack() throws Exception {
    start(80, 20, ApprovalMode.YOLO, "{'responses':[]}");
    ui.post(new UiInput.Paste("a long draft\nwith two lines"));
    waitFor("with two lines");
    ctrl('c');
    String s = waitFor(t -> input(t).startsWith("› Ask for a change"), "the input to clear");
    assertThat(s).contains("↑ brings it back");
    key(KeyType.ArrowUp);
    waitFor(t -> t.contains("› a long draft") && t.contains("  with two lines"), "the cleared draft, back");
  }

  @Test
  void anApprovalAndAQueueOfSteeringInTheSmallestWindowLeaveTheTabBarAndTheAnswers() throws Exception {
    start(WaymarkUi.MIN_COLUMNS, WaymarkUi.MIN_ROWS, ApprovalMode.ASK, "{'responses':[]}");
    ui.inject(new Event.TurnStarted(1, 0, "go"));
    StringBuilder preview = new StringBuilder("--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,30 @@\n");
    for (int i = 0; i < 30; i++) {
      preview.append("+line ").append(i).append('\n');
    }
    ui.inject(new Event.ToolCallProposed(1, new ToolCallView("c1", "write_file", "{}"),
        "write a.txt", preview.toString(), true));
    for (int i = 1; i <= 6; i++) {
      ui.inject(new Event.SteeringQueued(1, "steer number " + i));
    }
    ui.drawNow();
    String s = screen();
    List<String> rows = s.lines().toList();
    assertThat(rows.get(0)).as("the tab bar stays on top:\n" + s).startsWith(" 1 go").contains("waymark");
    assertThat(s).contains("Deny, and tell the model why…", "more queued");
  }

  @Test
  void theRailCountsCheckpointsAboveAndBelowItsWindowAndFollowsTheView() throws Exception {
    start(80, 20, ApprovalMode.YOLO, "{'responses':[]}");
    for (int n = 1; n <= 60; n++) {
      ui.inject(new Event.TurnStarted(n, n - 1, "p" + n));
      ui.inject(new Event.TurnFinished(n, TurnStatus.DONE,
          Optional.empty()));
    }
    ui.drawNow();
    String live = screen();
    assertThat(live.lines().skip(1).findFirst().orElseThrow().strip()).matches(".*\\+\\d+$");
    ui.inject(new Event.ViewMoved(3, false));
    ui.drawNow();
    String early = screen();
    assertThat(early).contains("Viewing checkpoint #3");
    long counters = early.lines().filter(l -> l.stripTrailing().matches(".*\\+\\d+$")).count();
    assertThat(counters).as("only a count below, the window starts at #0").isEqualTo(1);
  }

  @Test
  void wideCharactersAndEmojiKeepTheirColumns() throws Exception {
    start(80, 20, ApprovalMode.YOLO, "{'responses':[{'text':'漢字 and 😀 then ok|'}]}");
    send("emoji 👍🏽 please");
    String s = waitFor("then ok|");
    String line = s.lines().filter(l -> l.contains("then ok|")).findFirst().orElseThrow();
    assertThat(line).startsWith("漢字 and 😀 then ok|");
  }
}
