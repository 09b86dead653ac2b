package dev.waymark.tui;

import static org.assertj.core.api.Assertions.assertThat;

import com.googlecode.lanterna.TerminalSize;
import com.googlecode.lanterna.input.KeyStroke;
import com.googlecode.lanterna.input.KeyType;
import com.googlecode.lanterna.screen.TerminalScreen;
import com.googlecode.lanterna.terminal.virtual.DefaultVirtualTerminal;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.RetentionPolicy;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ScriptedChatModel;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.Tools;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.TimeZone;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whole screens of key moments, drawn on Lanterna's virtual terminal with real sessions and the
 * scripted model, compared cell for cell (trailing blanks left out) with the frames in
 * {@code tui/src/test/frames/}: what the user sees, as a specification.
 * A changed frame fails with both; {@code -Dframes.update=true} rewrites the expected files to
 * review them in the diff.
 */
class FrameSnapshotTest {
  private static final Path EXPECTED = Path.of("src/test/frames"); // surefire runs in the module's directory
  private static TimeZone zone;

  @TempDir Path temp;
  Path project;
  ShadowStore store;
  DefaultVirtualTerminal terminal;
  WaymarkUi ui;

  @BeforeAll
  static void utc() {
    zone = TimeZone.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone(ZoneOffset.UTC)); // the chat shows times of day
  }

  @AfterAll
  static void restoreZone() {
    TimeZone.setDefault(zone);
  }

  private Workspace workspace;

  private void start(ApprovalMode approval, String script) throws Exception {
    start(approval, script, new TerminalSize(80, 24));
  }

  private void start(ApprovalMode approval, String script, TerminalSize size) throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    terminal = new DefaultVirtualTerminal(size);
    TerminalScreen screen = new TerminalScreen(terminal);
    screen.startScreen();
    ScriptedChatModel.Script parsed = ScriptedChatModel.parse(script.replace('\'', '"'), "snapshot script");
    Clock fixed = Clock.fixed(Instant.parse("2026-03-04T09:30:00Z"), ZoneOffset.UTC);
    workspace = new Workspace(store, "scripted", (tree, memory) -> TabSession.of(tree, project,
        new ScriptedChatModel(parsed), Toolset.of(Tools.standard().all()), new SessionSettings("test-model", approval, true, null),
        memory));
    ui = new WaymarkUi(screen, Runnable::run, workspace,
        new WaymarkUi.Options("scripted · test-model", approval.name().toLowerCase(), KeyMap.defaults(), fixed));
    ui.openTab();
    ui.drawNow();
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

  private String screen() {
    StringBuilder b = new StringBuilder();
    TerminalSize size = terminal.getTerminalSize();
    for (int row = 0; row < size.getRows(); row++) {
      StringBuilder line = new StringBuilder();
      for (int col = 0; col < size.getColumns(); col++) {
        var c = terminal.getCharacter(col, row);
        line.append(c.getCharacterString());
        if (c.isDoubleWidth()) {
          col++;
        }
      }
      b.append(line.toString().stripTrailing()).append('\n');
    }
    return b.toString();
  }

  private String waitFor(Predicate<String> condition, String what) throws Exception {
    long end = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < end) {
      ui.step(20);
      ui.drawNow(); // the frame as it stands, not the one the pacing last let through
      String s = screen();
      if (condition.test(s)) {
        return s;
      }
    }
    throw new AssertionError("timed out waiting for " + what + "; the screen was:\n" + screen());
  }

  private String waitFor(String text) throws Exception {
    return waitFor(s -> s.contains(text), "\"" + text + "\"");
  }

  private void send(String text) {
    text.codePoints().forEach(cp -> ui.post(new UiInput.Text(new String(Character.toChars(cp)))));
    ui.post(new UiInput.Key(new KeyStroke(KeyType.Enter)));
  }

  private static void assertFrame(String name, String screen) throws IOException {
    // The context estimate counts the system prompt, which names the project's temporary directory,
    // whose name varies in length from run to run.
    String actual = screen.replaceAll("ctx ~\\d+", "ctx ~N");
    Path file = EXPECTED.resolve(name + ".txt");
    if (Boolean.getBoolean("frames.update")) {
      Files.writeString(file, actual);
    }
    assertThat(file).as("the expected frame; -Dframes.update=true writes it from:\n" + actual).exists();
    String expected = Files.readString(file, StandardCharsets.UTF_8);
    assertThat(actual).as("frame " + name + " (expected in " + file + ")").isEqualTo(expected);
  }

  private static final String TWO_TURNS = "{'responses':["
      + "{'whenLastUser':'greet','toolCalls':[{'name':'write_file','arguments':{'path':'hello.txt','content':'Hello\\n'}}]},"
      + "{'whenLastUser':'greet','text':'Wrote **hello.txt**.'},"
      + "{'whenLastUser':'louder','toolCalls':[{'name':'write_file','arguments':{'path':'hello.txt','content':'HELLO!\\n'}}]},"
      + "{'whenLastUser':'louder','text':'It shouts now.'}]}";

  @Test
  void viewingAnEarlierCheckpoint() throws Exception {
    start(ApprovalMode.YOLO, TWO_TURNS);
    send("greet the world");
    waitFor(s -> s.contains("Wrote hello.txt.") && s.contains("ready · #1"), "the first turn");
    send("louder, please");
    waitFor(s -> s.contains("It shouts now.") && s.contains("ready · #2"), "the second turn");
    ui.post(new UiInput.Key(new KeyStroke('b', true, false)));
    assertFrame("viewing", waitFor("Viewing checkpoint #1"));
  }

  @Test
  void anApprovalWaiting() throws Exception {
    start(ApprovalMode.ASK, TWO_TURNS);
    send("greet the world");
    assertFrame("approval", waitFor("Deny, and tell the model why…"));
  }

  @Test
  void anApprovalWaitingInTheSmallestWindow() throws Exception {
    start(ApprovalMode.ASK, TWO_TURNS, new TerminalSize(WaymarkUi.MIN_COLUMNS, WaymarkUi.MIN_ROWS));
    send("greet the world");
    assertFrame("approval-smallest", waitFor("Deny, and tell the model why…"));
  }

  @Test
  void aRestoreThatClashesWithAnEditMadeSince() throws Exception {
    start(ApprovalMode.YOLO, TWO_TURNS);
    send("greet the world");
    waitFor(s -> s.contains("Wrote hello.txt.") && s.contains("ready · #1"), "the first turn");
    Files.writeString(project.resolve("hello.txt"), "Hello, edited by hand\n");
    send("/undo");
    assertFrame("restore-clash", waitFor(s -> s.contains("clash") || s.contains("Clash"), "the clash"));
  }

  @Test
  void runThisPlanAfterAPlanTurn() throws Exception {
    start(ApprovalMode.PLAN, "{'responses':[{'toolCalls':[{'name':'write_file','arguments':{'path':'x.txt','content':'x'}}]},"
        + "{'text':'1. Write **x.txt**.\\n2. Check it.'}]}");
    send("plan a change");
    assertFrame("plan-to-run", waitFor("no, keep planning"));
  }

  @Test
  void theCommandMenuFilteredByWhatWasTyped() throws Exception {
    start(ApprovalMode.ASK, "{'responses':[]}");
    "/se".codePoints().forEach(cp -> ui.post(new UiInput.Text(new String(Character.toChars(cp)))));
    assertFrame("command-menu", waitFor("Esc close"));
  }
}
