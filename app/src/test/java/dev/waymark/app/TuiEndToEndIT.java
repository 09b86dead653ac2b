package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.Eventually;
import dev.waymark.tui.text.CellWidth;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The full-screen interface as a user drives it: the shaded jar in a real terminal (tmux), typing
 * and pressing keys, reading the screen, with the scripted model, and checking the files on disk
 * and the shadow repository with the real git.
 */
class TuiEndToEndIT {
  @TempDir Path temp;
  Path home;
  Path project;
  Tmux tmux;

  @BeforeAll
  static void needsTmux() {
    assertThat(Tmux.available()).as("tmux is needed for these tests: apt-get install tmux (.ci/run installs it)").isTrue();
  }

  @BeforeEach
  void setUp() throws Exception {
    home = temp.resolve("home");
    project = Files.createDirectories(temp.resolve("project"));
    tmux = new Tmux();
  }

  @AfterEach
  void tearDown() throws Exception {
    // quit as a user would, so Waymark is not still saving its session when the files are removed
    try {
      if (tmux.alive()) {
        escape();
        // Ctrl+C clears the input, interrupts a turn, then arms the exit: pressed until Waymark is gone
        try {
          Eventually.until("Waymark gone", Duration.ofSeconds(20), Duration.ofMillis(200), () -> {
            if (!tmux.alive()) {
              return true;
            }
            tmux.keys("C-c");
            return false;
          });
        } catch (AssertionError stillThere) {
          // waitForExit says so, with the screen
        }
        tmux.waitForExit(Duration.ofSeconds(5));
      }
    } finally {
      tmux.close();
    }
  }

  private void start(int columns, int rows, String approval, String script) throws Exception {
    Path scriptFile = temp.resolve("script.json");
    Files.writeString(scriptFile, script.replace('\'', '"'));
    List<String> command = Waymark.command(List.of(),
        List.of("--script", scriptFile.toString(), "--approval", approval, project.toString()));
    tmux.start(columns, rows, project, Map.of("WAYMARK_HOME", home.toString(), "HOME", temp.resolve("user").toString(),
        "XDG_CONFIG_HOME", temp.resolve("config").toString()), command);
    tmux.waitFor("ready · #0");
  }

  private void send(String text) throws Exception {
    tmux.type(text);
    tmux.keys("Enter");
  }

  /** Esc, then a pause: an Esc followed at once by another key reads as Alt and that key, as in any terminal. */
  private void escape() throws Exception {
    tmux.keys("Escape");
    // No signal: the terminal's input decoder tells Esc from Alt by the time until the next byte
    // (and an Esc may change nothing on the screen); this pause is that protocol's, not a guess.
    Thread.sleep(300);
  }

  /** Waits for an approval, then as long as a person reads it: Enter answers nothing before (KeyRouter.APPROVAL_READING_TIME). */
  private void readApproval(String regex) throws Exception {
    tmux.waitFor(regex);
    // No signal: the packaged jar runs on the system clock (the virtual UI tests move theirs instead),
    // and the reading time is measured from when the approval was drawn.
    Thread.sleep(500);
  }

  private String file(String path) throws Exception {
    Path f = project.resolve(path);
    return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : null;
  }

  private void waitForFile(String path, String content) throws Exception {
    try {
      Eventually.until(path + " holds " + content, Duration.ofSeconds(20),
          () -> content == null ? file(path) == null : content.equals(file(path)));
      return;
    } catch (AssertionError notYet) {
      // said below, with the screen
    }
    throw new AssertionError(path + " is " + file(path) + ", not " + content + "; the screen was:\n" + tmux.screen());
  }

  /** The end of Waymark's log, to explain a failed assertion. */
  private String log() {
    Path log = home.resolve("logs").resolve("waymark.log");
    try {
      String all = Files.readString(log);
      return "the log ends:\n" + all.substring(Math.max(0, all.length() - 6000));
    } catch (IOException e) {
      return "no log at " + log;
    }
  }

  private String git(String... args) throws Exception {
    return Waymark.gitOk(home, args);
  }


  @Test
  void twoTabsRunAtOnceEachEditingItsOwnFileUnderItsOwnTags() throws Exception {
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'alpha','delayMs':4000,'toolCalls':[{'name':'write_file','arguments':{'path':'alpha.txt','content':'A\\n'}}]},"
        + "{'whenLastUser':'alpha','text':'Alpha is written.'},"
        + "{'whenLastUser':'beta','toolCalls':[{'name':'write_file','arguments':{'path':'beta.txt','content':'B\\n'}}]},"
        + "{'whenLastUser':'beta','text':'Beta is written.'}]}");

    send("make alpha");
    tmux.waitFor("working");
    tmux.keys("C-t");
    tmux.waitFor("ready · #0");
    send("make beta");
    tmux.waitFor("Beta is written.");
    // tab 1's model takes 4 s (1.5 s was not enough to open a tab and run a turn at a load average of 25)
    assertThat(file("alpha.txt")).as("tab 1 still runs while tab 2 finished").isNull();

    waitForFile("alpha.txt", "A\n");
    tmux.keys("M-1");
    tmux.waitFor("Alpha is written.");
    assertThat(file("beta.txt")).isEqualTo("B\n");

    String tags = git("tag", "-l", "waymark/*");
    List<String> tabs = tags.lines().map(t -> t.split("/")[1]).distinct().toList();
    assertThat(tabs).hasSize(2);
    String first = "waymark/" + tabs.get(0) + "/1";
    String second = "waymark/" + tabs.get(1) + "/1";
    String alphaTag = git("ls-tree", "-r", "--name-only", first).contains("post/alpha.txt") ? first : second;
    String betaTag = alphaTag.equals(first) ? second : first;
    assertThat(git("show", alphaTag + ":post/alpha.txt")).isEqualTo("A\n");
    assertThat(git("show", betaTag + ":post/beta.txt")).isEqualTo("B\n");
    assertThat(git("ls-tree", "-r", "--name-only", alphaTag)).doesNotContain("beta.txt");
  }

  @Test
  void browseUndoRedoAndBranchMoveFilesOnlyWhenAsked() throws Exception {
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1\\n'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'2\\n'}}]},"
        + "{'whenLastUser':'two','text':'Wrote two.'},"
        + "{'whenLastUser':'three','text':'Branched from one.'}]}");
    send("one");
    tmux.waitFor("Wrote one.");
    tmux.waitFor("ready · #1"); // the answer shows a moment before the checkpoint is committed
    send("two");
    tmux.waitFor("Wrote two.");
    tmux.waitFor("ready · #2");
    assertThat(file("a.txt")).isEqualTo("2\n");

    tmux.keys("C-b");
    tmux.waitFor("↶ Viewing checkpoint #1, send a message to rewind here.");
    assertThat(file("a.txt")).as("browsing changes nothing on disk").isEqualTo("2\n");
    tmux.keys("C-f");
    tmux.waitFor("ready · #2");
    assertThat(tmux.screen()).doesNotContain("Viewing checkpoint");
    tmux.keys("M-Left");
    tmux.waitFor("Viewing checkpoint #1");
    escape();
    tmux.waitFor("ready · #2");

    send("/checkpoint undo");
    tmux.waitFor("↶ Rewound past this point.");
    waitForFile("a.txt", "1\n");
    tmux.waitFor("› two"); // the prompt that left #1 is back in the input
    tmux.keys("C-c");
    send("/checkpoint redo");
    waitForFile("a.txt", "2\n");
    tmux.waitFor("ready · #2");

    tmux.keys("C-b");
    tmux.waitFor("Viewing checkpoint #1");
    send("three");
    tmux.waitFor("Branched from one.");
    waitForFile("a.txt", "1\n");
    String screen = tmux.waitFor("ready · #3");
    assertThat(screen).contains("↶ Rewound past this point.");

    send("/checkpoint goto 2");
    waitForFile("a.txt", "2\n");
    tmux.waitFor("› three"); // the message that left #2 (by branching) is back as a draft
    tmux.keys("C-c");
    send("/checkpoint save first-way");
    tmux.waitFor("Saved #2");
    send("/checkpoint");
    tmux.waitFor("Checkpoints \\(live #2\\)");
    tmux.waitFor("▸ #2 .*two.*live.*\"first-way\"");
    tmux.waitFor("└ #3 .*three.*branch from #1.*abandoned");
    send("/checkpoint frobnicate");
    tmux.waitFor("Unknown /checkpoint command");
  }

  @Test
  void anApprovalShowsTheDiffTypingAnswersNothingAndOnlyEnterOrADenialWithAReasonDo() throws Exception {
    start(120, 36, "ask", "{'responses':["
        + "{'whenLastUser':'go','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'hello\\n'}}]},"
        + "{'whenLastUser':'go','text':'Written.'},"
        + "{'whenLastUser':'again','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'no\\n'}}]},"
        + "{'whenLastUser':'again','text':'Understood, not written.'}]}");
    send("go");
    readApproval("Allow write_file: write a.txt\\?");
    assertThat(tmux.screen()).contains("+hello", "› Allow once", "Deny, and tell the model why…");
    assertThat(tmux.rang()).as("the bell rang").isTrue();
    tmux.type("actually wait, yes always");
    tmux.waitFor("› actually wait, yes always");
    tmux.waitFor("typing goes to the input");
    assertThat(file("a.txt")).as("no letter answered the approval").isNull();
    tmux.keys("C-u");
    tmux.waitFor("Answer above with");
    tmux.keys("Enter");
    tmux.waitFor("Written.");
    assertThat(file("a.txt")).isEqualTo("hello\n");
    tmux.waitFor("ready · #1");

    send("again");
    readApproval("Allow write_file: write b.txt\\?");
    tmux.keys("Down", "Down", "Enter");
    tmux.waitFor("Tell the model why");
    send("keep b out of it");
    tmux.waitFor("Understood, not written.");
    assertThat(tmux.screen()).contains("The user denied this call: keep b out of it");
    assertThat(file("b.txt")).isNull();
  }

  @Test
  void aMessageTypedDuringATurnSteersItAndEscInterrupts() throws Exception {
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'start','text':'Working through the first step of the plan slowly.','chunkDelayMs':250},"
        + "{'whenLastUser':'also tests','text':'Adding the tests too.'},"
        + "{'whenLastUser':'long','delayMs':60000,'text':'never'}]}");
    send("start");
    tmux.waitFor("working");
    send("also tests");
    tmux.waitFor("⏳ queued: also tests");
    tmux.waitFor("Adding the tests too.");
    assertThat(tmux.waitFor("ready · #1")).contains("also tests  · steering").doesNotContain("queued:");

    send("long");
    tmux.waitFor("ctrl\\+c to interrupt");
    escape();
    tmux.waitFor("Interrupted.");
    tmux.waitFor("ready · #2");
  }

  @Test
  void ctrlCInterruptsARunningTurnThenTwiceOnAnIdleEmptyInputQuits() throws Exception {
    start(120, 36, "yolo", "{'responses':[{'delayMs':60000,'text':'never'}]}");
    send("long");
    tmux.waitFor("working");
    tmux.keys("C-c");
    String interrupted = tmux.waitFor("ready · #1");
    assertThat(interrupted).contains("Interrupted.").doesNotContain("Interrupting…", "again to exit");
    assertThat(tmux.alive()).isTrue();
    tmux.keys("C-c");
    tmux.waitFor("Press Ctrl\\+C again to exit");
    tmux.keys("C-c");
    tmux.waitForExit(Duration.ofSeconds(20));
  }

  @Test
  void aCommandTypedOverAnUndoneRefilledPromptRunsAsACommand() throws Exception {
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'make','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'x\\n'}}]},"
        + "{'whenLastUser':'make','text':'Made it.'}]}");
    send("make a");
    tmux.waitFor("ready · #1");
    send("/checkpoint undo");
    waitForFile("a.txt", null);
    tmux.waitFor("› make a");
    send("/checkpoint redo");
    waitForFile("a.txt", "x\n");
    assertThat(tmux.waitFor("ready · #1")).doesNotContain("#2");
  }

  @Test
  void enterWhileViewingDuringATurnSteersAndTheTabIsLiveAgainWhenItEnds() throws Exception {
    start(120, 36, "yolo", "{'responses':[{'whenLastUser':'one','text':'First.'},"
        + "{'whenLastUser':'slow','delayMs':4000,'text':'Slow done.'},{'text':'Steered.'}]}");
    send("one");
    tmux.waitFor("ready · #1");
    send("slow");
    tmux.waitFor("working");
    tmux.keys("C-b");
    tmux.waitFor("Viewing checkpoint #1");
    send("keep going");
    tmux.waitFor("the message steers it");
    tmux.keys("C-b");
    tmux.waitFor("Viewing checkpoint #1");
    String after = tmux.waitFor("ready · #2");
    assertThat(after).doesNotContain("Viewing checkpoint");
  }

  @Test
  void shortAliasesAndTheRewindListUndoRedoAndGoBack() throws Exception {
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1\\n'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'},"
        + "{'whenLastUser':'two','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'2\\n'}}]},"
        + "{'whenLastUser':'two','text':'Wrote two.'}]}");
    send("one");
    tmux.waitFor("ready · #1");
    send("two");
    tmux.waitFor("ready · #2");
    tmux.type("/un");
    tmux.keys("Tab");
    tmux.waitFor("› /undo");
    send("1"); // Tab left a space after the command
    waitForFile("a.txt", "1\n");
    send("/redo");
    waitForFile("a.txt", "2\n");
    send("/diff 1");
    tmux.waitFor("Diff: disk against #1");
    escape();
    escape(); // two Escs, apart (not an Alt) and within KeyRouter's SECOND_ESC
    tmux.keys("Escape");
    tmux.waitFor("Rewind: go back to before a prompt");
    tmux.keys("Down");
    tmux.keys("Enter");
    waitForFile("a.txt", null);
    tmux.waitFor("ready · #0");
    tmux.waitFor("› one");
  }

  @Test
  void emojiAndWideCharactersShowAsThemselvesWithTheRailInItsColumn() throws Exception {
    start(100, 30, "yolo", "{'responses':["
        + "{'toolCalls':[{'name':'write_file','arguments':{'path':'r.txt','content':'go 🚀 now\\n'}}]},"
        + "{'text':'Rocket 🚀 family 👨‍👩‍👧 han 漢字 end|'}]}");
    send("emoji 🚀 please");
    String screen = tmux.waitFor("ready · #1");
    assertThat(screen).contains("› emoji 🚀 please", "+go 🚀 now", "Rocket 🚀 family").doesNotContain("??");
    List<String> rows = screen.lines().toList();
    int railColumn = CellWidth.of(rows.get(1).stripTrailing()) - 1; // the separator's dot
    String prompt = rows.stream().filter(l -> l.startsWith("› emoji")).findFirst().orElseThrow().stripTrailing();
    assertThat(CellWidth.of(prompt) - 1).as("the rail's column on the row with the emoji")
        .isEqualTo(railColumn);
  }

  @Test
  void aShellCommandNamesTheFilesItChangedAndCtrlOShowsItAll() throws Exception {
    start(120, 36, "yolo", "{'responses':[{'toolCalls':[{'name':'run_shell','arguments':"
        + "{'command':'seq 201 203; for f in a b c d e; do echo $f > $f.txt; done'}}]},{'text':'Ran it.'}]}");
    send("make files");
    String folded = tmux.waitFor("ready · #1");
    assertThat(folded).contains("5 files changed", "created a.txt", "… 1 more (Ctrl+O expands)").doesNotContain("202");
    tmux.keys("C-o");
    assertThat(tmux.waitFor("created e.txt")).contains("202", "[exit code 0]");
    send("/undo");
    waitForFile("e.txt", null);
  }

  @Test
  void aPasteNeverSubmitsAndResizingDownToTheMinimumKeepsWorking() throws Exception {
    start(100, 30, "yolo", "{'responses':[{'text':'Got both lines.'}]}");
    tmux.paste("first line\nsecond line");
    tmux.waitFor("second line");
    assertThat(tmux.screen()).contains("› first line").doesNotContain("Got both lines.");
    tmux.keys("Enter");
    tmux.waitFor("Got both lines.");

    tmux.resize(60, 15);
    tmux.waitFor("ready · #1");
    tmux.resize(40, 10);
    tmux.waitFor("needs at least 60×15");
    tmux.resize(100, 30);
    tmux.waitFor("ready · #1");
    assertThat(tmux.screen()).contains("Got both lines.");

    tmux.keys("C-d");
    tmux.waitForExit(Duration.ofSeconds(15));
  }

  private void startWith(List<String> args) throws Exception {
    List<String> command = Waymark.command(List.of(), args);
    tmux.start(120, 36, project, Map.of("WAYMARK_HOME", home.toString(), "HOME", temp.resolve("user").toString(),
        "XDG_CONFIG_HOME", temp.resolve("config").toString()), command);
  }

  @Test
  void everyStepOfTheDemoWelcomeWorksAndTheDemoCanBeContinued() throws Exception {
    startWith(List.of("--demo"));
    String welcome = tmux.waitFor("ready · #0");
    Matcher where = Pattern.compile("project is in (\\S+)").matcher(welcome.replace("\n", " "));
    assertThat(where.find()).as(welcome).isTrue();
    Path demo = Path.of(where.group(1).replaceAll(",$", ""));
    assertThat(demo.resolve("greeter.py")).exists();

    // 1 and 2: three changes
    send("add a shout option");
    readApproval("Allow write_file: write greeter.py\\?");
    tmux.keys("Enter");
    tmux.waitFor("ready · #1");
    assertThat(Files.readString(demo.resolve("greeter.py"))).contains("shout");
    send("now tests");
    readApproval("Allow write_file: write test_greeter.py\\?");
    tmux.keys("Down", "Enter");
    tmux.waitFor("kept in:");
    tmux.keys("Enter");
    tmux.waitFor("ready · #2");
    assertThat(demo.resolve("test_greeter.py")).exists();
    send("and the readme");
    tmux.waitFor("ready · #3");
    assertThat(Files.readString(demo.resolve("README.md"))).contains("--shout");

    // 3: browse
    tmux.keys("C-b");
    tmux.waitFor("Viewing checkpoint #2");
    tmux.keys("C-f");
    tmux.waitFor("ready · #3");
    // 4: undo, redo, diff, the tree, rewind
    send("/undo");
    tmux.waitFor("Rewound past this point");
    tmux.keys("C-c");
    send("/redo");
    tmux.waitFor("ready · #3");
    send("/diff 0");
    tmux.waitFor("Diff: disk against #0");
    escape();
    send("/checkpoint");
    tmux.waitFor("Checkpoints \\(live #3\\)");
    send("/rewind");
    tmux.waitFor("Rewind: go back to before a prompt");
    escape();
    // 5: branch from a viewed checkpoint
    tmux.keys("C-b");
    tmux.waitFor("Viewing checkpoint #2");
    send("something else");
    tmux.waitFor("ready · #4");
    // the branch from #2 lacks the README change, so the demo's model makes it again (allowed for the session)
    waitForPath(demo.resolve("README.md"), true);
    assertThat(Files.readString(demo.resolve("README.md"))).contains("--shout");
    send("anything more");
    tmux.waitFor("ready · #5");
    assertThat(tmux.screen()).contains("no more changes to make");
    // 6: a second tab works as the first did; write_file, allowed from now on in the first, runs unasked
    tmux.keys("C-t");
    tmux.waitFor(" 2 ");
    send("add a shout option");
    String second = tmux.waitFor("ready · #1");
    assertThat(second).contains("✓ write_file write greeter.py").doesNotContain("✗", "Allow write_file");

    tmux.keys("C-d");
    tmux.waitForExit(Duration.ofSeconds(20));
    assertThat(tmux.screenAndScrollback()).as(log()).contains("the demo project stays in " + demo, "waymark --demo --continue");

    tmux.close();
    tmux = new Tmux();
    startWith(List.of("--demo", "--continue"));
    tmux.waitFor("Session .*2 tabs");
    tmux.keys("M-1");
    tmux.waitFor("no more changes to make");
    send("/undo");
    waitForPath(demo.resolve("test_greeter.py"), true);
    tmux.waitFor("Rewound past this point");
  }

  private void waitForPath(Path path, boolean exists) throws Exception {
    try {
      Eventually.until(path + (exists ? " exists" : " is gone"), Duration.ofSeconds(20), () -> Files.exists(path) == exists);
    } catch (AssertionError notYet) {
      // said below, with the screen
    }
    assertThat(Files.exists(path)).as(path + "; the screen was:\n" + tmux.screen()).isEqualTo(exists);
  }

  @Test
  void continueReopensTheLastSessionWhereItWas() throws Exception {
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1\\n'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'}]}");
    send("one");
    tmux.waitFor("ready · #1");
    send("/session save first-try");
    tmux.waitFor("Saved session first-try");
    send("/quit");
    tmux.waitForExit(Duration.ofSeconds(20));

    tmux.close();
    tmux = new Tmux();
    startWith(List.of("--continue", "--script", temp.resolve("script.json").toString(), "--approval", "yolo", project.toString()));
    String back = tmux.waitFor("ready · #1");
    assertThat(back).contains("› one", "Wrote one.", "Session first-try");
    send("/checkpoint undo");
    waitForFile("a.txt", null);
  }

  @Test
  void resumeWithoutAnIdOpensOnTheSessionsByTheirFirstPromptFilteredAsOneTypes() throws Exception {
    start(120, 36, "yolo", "{'responses':[{'text':'Answered.'}]}");
    send("fix the flaky login test");
    tmux.waitFor("ready · #1");
    send("/quit");
    tmux.waitForExit(Duration.ofSeconds(20));

    tmux.close();
    tmux = new Tmux();
    startWith(List.of("--resume", "--script", temp.resolve("script.json").toString(), project.toString()));
    String listed = tmux.waitFor("Resume a session");
    assertThat(listed).contains("fix the flaky login test", "1 tab · 1 checkpoint", "1 of 1");
    tmux.type("nothing like it");
    tmux.waitFor("0 of 1");
    for (int i = 0; i < "nothing like it".length(); i++) {
      tmux.keys("BSpace");
    }
    tmux.type("flaky");
    tmux.waitFor("search: flaky▏  1 of 1");
    tmux.keys("Enter");
    assertThat(tmux.waitFor("ready · #1")).contains("Answered.");
  }

  @Test
  void aClosedTabStaysInTheSessionAndReopensAfterContinue() throws Exception {
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'one','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'1\\n'}}]},"
        + "{'whenLastUser':'one','text':'Wrote one.'},{'text':'Second tab.'}]}");
    send("one");
    tmux.waitFor("ready · #1");
    tmux.keys("C-t");
    tmux.waitFor("ready · #0");
    send("hello");
    tmux.waitFor("Second tab.");
    tmux.keys("M-1");
    tmux.waitFor("Wrote one.");
    tmux.keys("C-w");
    tmux.waitFor("Close tab 1 \\(1 checkpoint\\)\\?");
    tmux.type("y");
    tmux.waitFor("Second tab.");
    send("/quit");
    tmux.waitForExit(Duration.ofSeconds(20));
    String tags = git("tag", "-l", "waymark/*");
    assertThat(git("show", tags.lines().findFirst().orElseThrow() + ":post/a.txt")).as("the closed tab's tag is kept").isEqualTo("1\n");

    tmux.close();
    tmux = new Tmux();
    startWith(List.of("--continue", "--script", temp.resolve("script.json").toString(), "--approval", "yolo", project.toString()));
    tmux.waitFor("1 tab, 1 closed");
    send("/tab reopen");
    tmux.waitFor("Wrote one.");
    send("/undo");
    waitForFile("a.txt", null);
  }

  @Test
  void quittingWithAnApprovalWaitingAsksAndContinueProposesTheCallAgain() throws Exception {
    start(120, 36, "ask", "{'responses':["
        + "{'whenLastUser':'go','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'hello\\n'}}]},"
        + "{'text':'Written.'}]}");
    send("go");
    tmux.waitFor("Allow write_file: write a.txt\\?");
    tmux.keys("C-d");
    tmux.waitFor("Quit anyway\\?");
    tmux.type("y");
    tmux.waitForExit(Duration.ofSeconds(20));
    assertThat(file("a.txt")).isNull();

    tmux.close();
    tmux = new Tmux();
    startWith(List.of("--continue", "--script", temp.resolve("script.json").toString(), "--approval", "ask", project.toString()));
    readApproval("Proposed again — allow write_file");
    tmux.keys("Enter");
    waitForFile("a.txt", "hello\n");
    // this process's scripted model starts its script again: it proposes the write once more; Esc stops there
    readApproval("Allow write_file: write a.txt\\?");
    escape();
    tmux.waitFor("ready · #2");
    send("/checkpoint");
    tmux.waitFor("#2 .*\\(approved write_file\\)"); // the checkpoint the approval made is named for it, not blank
  }

  @Test
  void aTurnKilledHalfwayComesBackWithContinueAndCanBeUndone() throws Exception {
    Files.writeString(project.resolve("a.txt"), "mine\n");
    start(120, 36, "yolo", "{'responses':["
        + "{'whenLastUser':'change','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'agent\\n'}}]},"
        + "{'whenLastUser':'change','delayMs':60000,'text':'Never said.'}]}");
    send("change a");
    waitForFile("a.txt", "agent\n");
    long pid = Long.parseLong(tmux.run("display-message", "-p", "-t", "ui", "#{pane_pid}").strip());
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL, mid-turn
    tmux.waitForExit(Duration.ofSeconds(20));

    tmux.close();
    tmux = new Tmux();
    startWith(List.of("--continue", "--script", temp.resolve("script.json").toString(), "--approval", "yolo", project.toString()));
    String back = tmux.waitFor("ready · #1");
    assertThat(back).contains("› change a", "were recorded after the session was last saved");
    send("/checkpoint undo");
    waitForFile("a.txt", "mine\n");
  }

  @Test
  void aFirstRunWithoutAProviderWelcomesAndSaysWhatToSet() throws Exception {
    startWith(List.of(project.toString()));
    String screen = tmux.waitFor("ready · #0");
    assertThat(screen).contains("Welcome to Waymark", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "localhost:11434", "--demo");
    send("hello");
    tmux.waitFor("No model is configured");
  }

  @Test
  void aWelcomeReadAndLeftKeepsNoSessionToResume() throws Exception {
    startWith(List.of(project.toString()));
    tmux.waitFor("ready · #0");
    send("hello"); // refused: no model, no checkpoint
    tmux.waitFor("✗ No model is configured");
    tmux.keys("C-d");
    tmux.waitForExit(Duration.ofSeconds(20));
    try (var sessions = Files.walk(home)) {
      assertThat(sessions.filter(p -> p.getParent().getFileName().toString().equals("sessions")
          && p.toString().endsWith(".json")).toList()).as("no \"(no prompt yet)\" session in every --resume list").isEmpty();
    }
  }

  @Test
  void theTerminalIsRestoredWhenWaymarkExits() throws Exception {
    Path script = temp.resolve("script.json");
    Files.writeString(script, "{\"responses\":[]}");
    Path stty = temp.resolve("stty.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    tmux.start(100, 30, project, Map.of("WAYMARK_HOME", home.toString(), "XDG_CONFIG_HOME", temp.resolve("config").toString()),
        List.of("bash", "-c", "'" + java + "' -jar '" + System.getProperty("waymark.jar") + "' --script '" + script
            + "' . ; stty -a > '" + stty + "'; printf 'after-exit\\n'; sleep 30"));
    tmux.waitFor("ready · #0");
    tmux.keys("C-c");
    tmux.waitFor("Press Ctrl\\+C again to exit");
    tmux.keys("C-c");
    tmux.waitFor("after-exit");
    String settings = Files.readString(stty);
    assertThat(settings).contains(" icanon", " echo ", " ixon").doesNotContain("-icanon", "-echo ");
    assertThat(settings).containsPattern("intr = \\^C").containsPattern("susp = \\^Z");
  }

  @Test
  void shiftTabToPlanAPlanTurnReadsOnlyThenRunsInTheChosenModeAndTheModeComesBackWithTheSession() throws Exception {
    Files.writeString(project.resolve("notes.txt"), "hello\n");
    start(120, 36, "ask", "{'responses':["
        + "{'whenLastUser':'plan','toolCalls':[{'name':'write_file','arguments':{'path':'early.txt','content':'no'}}]},"
        + "{'whenLastUser':'plan','text':'1. Write done.txt'},"
        + "{'whenLastUser':'Carry out','toolCalls':[{'name':'write_file','arguments':{'path':'done.txt','content':'yes'}}]},"
        + "{'whenLastUser':'Carry out','text':'Done.'}]}");
    tmux.keys("BTab"); // Shift+Tab as the terminal sends it: ask → auto-edit
    tmux.waitFor("scripted · auto-edit");
    tmux.keys("BTab"); // → auto where the sandbox runs (CI has bwrap), then → plan
    tmux.waitFor("scripted · auto ");
    tmux.keys("BTab");
    tmux.waitFor("scripted · plan");
    send("plan the change");
    tmux.waitFor("Run this plan\\?");
    assertThat(tmux.screen()).contains("Not run: the tab is in plan mode", "yes, in auto-edit");
    assertThat(file("early.txt")).isNull();
    tmux.keys("Enter");
    tmux.waitFor("ready · #2");
    assertThat(file("done.txt")).isEqualTo("yes");
    assertThat(tmux.screen()).contains("Carry out the plan.", "scripted · auto-edit");

    tmux.keys("C-d");
    tmux.waitForExit(Duration.ofSeconds(20));
    // no --approval now: the tab's own mode comes back (a flag given now would win, with a notice)
    List<String> command = Waymark.command(List.of(), List.of("--script", temp.resolve("script.json").toString(),
        "--continue", project.toString()));
    tmux.close();
    tmux = new Tmux();
    tmux.start(120, 36, project, Map.of("WAYMARK_HOME", home.toString(), "HOME", temp.resolve("user").toString(),
        "XDG_CONFIG_HOME", temp.resolve("config").toString()), command);
    tmux.waitFor("ready · #2");
    assertThat(tmux.screen()).as("the tab's own mode, saved with the session").contains("scripted · auto-edit");
  }
}
