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
import dev.waymark.tui.command.CommandEntry;
import dev.waymark.tui.command.RunInfo;
import dev.waymark.tui.terminal.KeyMap;
import dev.waymark.tui.terminal.UiInput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Modes, plan mode, /model, /status and the command menu, on the virtual terminal with real sessions. */
class ModesUiTest {
  @TempDir Path temp;
  Path project;
  ShadowStore store;
  DefaultVirtualTerminal terminal;
  WaymarkUi ui;
  Workspace workspace;
  volatile TabSession lastOpened;

  private void start(ApprovalMode approval, String script, RunInfo run) throws Exception {
    project = Files.createDirectories(temp.resolve("project"));
    Files.writeString(project.resolve("notes.txt"), "hello\n");
    store = ShadowStore.open(project, new WaymarkHome(temp.resolve("home")), RetentionPolicy.DEFAULT);
    terminal = new DefaultVirtualTerminal(new TerminalSize(110, 32));
    TerminalScreen screen = new TerminalScreen(terminal);
    screen.startScreen();
    ScriptedChatModel.Script parsed = ScriptedChatModel.parse(script.replace('\'', '"'), "test script");
    workspace = new Workspace(store, "scripted", (tree, memory) -> {
      TabSession opened = TabSession.of(tree, project, new ScriptedChatModel(parsed),
          Toolset.of(Tools.standard().all()), new SessionSettings("test-model", approval, true, null), memory);
      lastOpened = opened;
      return opened;
    });
    ui = new WaymarkUi(screen, Runnable::run, workspace, new WaymarkUi.Options("scripted · test-model",
        approval.label(), KeyMap.defaults(), Clock.systemDefaultZone(), run));
    ui.openTab();
    ui.drawNow();
  }

  private static RunInfo run() {
    return new RunInfo("scripted", "http://127.0.0.1:9/v1", List.of("test-model", "big-model"), false,
        "none: shell commands run unsandboxed", Map.of("test-model", new RunInfo.ModelPrice(1_000_000, 2_000_000)),
        () -> "found by comparing the project before and after each command (no layer: commands are not sandboxed)");
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

  @Test
  void shiftTabCyclesTheTabsModeShownInTheFooterAndNeverReachesYolo() throws Exception {
    start(ApprovalMode.ASK, "{'responses':[]}", run());
    assertThat(footer()).contains("scripted · test-model · ask");
    key(KeyType.ReverseTab);
    waitFor(s -> footer(s).contains("test-model · auto-edit") && s.contains("Mode auto-edit: edits run"), "auto-edit");
    key(KeyType.ReverseTab);
    waitFor(s -> footer(s).contains("test-model · plan"), "plan");
    assertThat(lastOpened.settings().approval()).isEqualTo(ApprovalMode.PLAN);
    key(KeyType.ReverseTab);
    waitFor(s -> footer(s).contains("test-model · ask"), "back to ask");
    for (int i = 0; i < 6; i++) {
      key(KeyType.ReverseTab);
      waitFor(s -> !footer(s).contains("yolo"), "no yolo");
    }
  }

  @Test
  void modeCommandSetsAnyModeYoloIncludedPerTab() throws Exception {
    start(ApprovalMode.ASK, "{'responses':[]}", run());
    send("/mode yolo");
    waitFor(s -> footer(s).contains("· yolo") && s.contains("Mode yolo: every tool call runs"), "yolo");
    ui.post(new UiInput.Key(new KeyStroke('t', true, false))); // Ctrl+T: a new tab keeps the mode of the run
    waitFor(s -> footer(s).contains("· ask"), "the new tab in ask");
    send("/mode sudo");
    waitFor("Unknown approval mode \"sudo\": use plan, ask, auto-edit, auto or yolo");
    send("/mode");
    waitFor("Shift+Tab cycles plan → ask → auto-edit");
  }

  @Test
  void aPlanTurnRunsOnlyReadingToolsThenAsksWhetherToRunThePlanAndRunsItInTheChosenMode() throws Exception {
    String script = "{'responses':["
        + "{'whenLastUser':'plan','toolCalls':[{'name':'write_file','arguments':{'path':'early.txt','content':'no'}}]},"
        + "{'whenLastUser':'plan','text':'1. Write done.txt'},"
        + "{'whenLastUser':'Carry out','toolCalls':[{'name':'write_file','arguments':{'path':'done.txt','content':'yes'}}]},"
        + "{'whenLastUser':'Carry out','text':'Done.'}]}";
    start(ApprovalMode.PLAN, script, run());
    send("plan the change");
    String asked = waitFor(s -> s.contains("Run this plan?") && s.contains("ready · #1"), "the question");
    assertThat(asked).contains("yes, in auto-edit: edits run", "yes, in ask:", "no, keep planning", "plan mode");
    assertThat(project.resolve("early.txt")).doesNotExist();
    key(KeyType.Enter); // the first answer: auto-edit
    waitFor(s -> s.contains("Done.") && s.contains("ready · #2"), "the plan carried out");
    assertThat(Files.readString(project.resolve("done.txt"))).isEqualTo("yes");
    assertThat(footer()).contains("auto-edit");
    assertThat(screen()).contains("› Carry out the plan.").doesNotContain("Run this plan?");
  }

  @Test
  void escAtRunThisPlanKeepsPlanning() throws Exception {
    start(ApprovalMode.PLAN, "{'responses':[{'text':'1. A plan'}]}", run());
    send("plan");
    waitFor("Run this plan?");
    key(KeyType.ArrowDown);
    key(KeyType.ArrowDown);
    key(KeyType.Escape);
    String after = waitFor(s -> !s.contains("Run this plan?"), "the question gone");
    assertThat(after).contains("Still in plan mode");
    assertThat(lastOpened.settings().approval()).isEqualTo(ApprovalMode.PLAN);
  }

  @Test
  void modelCommandPicksFromTheProvidersModelsOrTakesAnyName() throws Exception {
    start(ApprovalMode.ASK, "{'responses':[]}", run());
    send("/model");
    waitFor(s -> s.contains("Model for the next turn") && s.contains("big-model"), "the list");
    key(KeyType.ArrowDown);
    key(KeyType.Enter);
    waitFor(s -> footer(s).contains("scripted · big-model"), "big-model");
    send("/model tiny");
    waitFor(s -> footer(s).contains("scripted · tiny") && s.contains("not among the models of scripted"), "tiny");
    assertThat(lastOpened.settings().model()).isEqualTo("tiny");
  }

  @Test
  void statusShowsProviderModelServerModeSandboxTokensAndCost() throws Exception {
    start(ApprovalMode.ASK,
        "{'responses':[{'text':'hi','usage':{'inputTokens':1000,'outputTokens':10,'cacheReadTokens':800}}]}", run());
    send("hello");
    waitFor("ready · #1");
    send("/status");
    String s = waitFor("Status of tab 1");
    assertThat(s).contains("tab id    " + lastOpened.tabId(), "scripted · http://127.0.0.1:9/v1", "model     test-model", "ask: edits and shell",
        "none: shell commands run unsandboxed", "1,000 tokens in (800 read from the prompt cache), 10 out · $1020.0000",
        "commands  found by comparing the project before and after each command (no layer: commands are not",
        "context   1,010 tokens (the model's window is unknown");
  }

  @Test
  void typingASlashOpensAFilteredMenuThatRunsCompletesAndCloses() throws Exception {
    start(ApprovalMode.ASK, "{'responses':[]}", run());
    type("/");
    String menu = waitFor("Enter run · Esc close");
    assertThat(menu).contains("/checkpoint", "the checkpoints as a tree", "▸", "commands");
    type("mo");
    String filtered = waitFor(s -> s.contains("/model [NAME]") && !s.contains("/help "), "filtered");
    assertThat(filtered).contains("/mode [plan|ask|auto-edit|auto|yolo]");
    key(KeyType.ArrowDown);
    key(KeyType.Tab);
    waitFor(s -> input(s).equals("› /model"), "completed to /model");
    key(KeyType.Escape);
    waitFor(s -> !s.contains("Enter run · Esc close"), "closed");
    ui.post(new UiInput.Key(new KeyStroke('u', true, false))); // Ctrl+U: empty the input
    type("/stat");
    waitFor("/status");
    key(KeyType.Enter);
    waitFor("Status of tab 1");
    type("/mdoe plan");
    key(KeyType.Enter);
    waitFor("Unknown command /mdoe. Did you mean /mode?");
  }

  @Test
  void upGoesOnThroughHistoryPastACommandItBroughtBack() throws Exception {
    start(ApprovalMode.ASK, "{'responses':[{'text':'ok'}]}", run());
    send("hello");
    waitFor("ready · #1");
    send("/status");
    waitFor("Status of tab 1");
    key(KeyType.ArrowUp);
    waitFor(s -> input(s).equals("› /status") && !s.contains("Enter run · Esc close"), "/status back, no menu");
    key(KeyType.ArrowUp);
    waitFor(s -> input(s).equals("› hello"), "the prompt before it");
  }

  @Test
  void aCompactInPlanModeIsNoPlanToRun() throws Exception {
    start(ApprovalMode.PLAN, "{'responses':[{'text':'1. A plan'},{'text':'A summary.'}]}", run());
    send("plan");
    waitFor("Run this plan?");
    send("/compact");
    waitFor("ready · #2");
    assertThat(screen()).doesNotContain("Run this plan?");
  }

  @Test
  void aCommandAnotherFeatureAddsShowsInTheMenuAndTheHelp() throws Exception {
    start(ApprovalMode.ASK, "{'responses':[]}", run());
    ui.commands().add(new CommandEntry("/review [PATH]", "a custom command: review the changes"));
    type("/rev");
    waitFor("a custom command: review the changes");
  }

  private String footer() {
    return footer(screen());
  }

  private static String footer(String screen) {
    List<String> rows = screen.lines().toList();
    return rows.get(rows.size() - 1);
  }

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

  private String waitFor(String text) throws Exception {
    return waitFor(s -> s.contains(text), "\"" + text + "\"");
  }

  private static String input(String screen) {
    List<String> rows = screen.lines().toList();
    for (int r = rows.size() - 1; r > 0; r--) {
      if (rows.get(r - 1).startsWith("────")) {
        return rows.get(r).strip();
      }
    }
    return "";
  }

  private void type(String text) {
    text.codePoints().forEach(cp -> ui.post(new UiInput.Text(new String(Character.toChars(cp)))));
  }

  private void key(KeyType type) {
    ui.post(new UiInput.Key(new KeyStroke(type)));
  }

  private void send(String text) {
    type(text);
    key(KeyType.Enter);
  }
}
