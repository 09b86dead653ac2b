package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.testing.Eventually;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code waymark checkpoints bisect} as a script runs it, on a session {@code waymark exec} made:
 * the packaged jar, the real sandbox and layers; the project's files stay as they are.
 */
class CheckpointsBisectIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  Path home;
  Path project;

  record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }
  }

  @BeforeEach
  void fourTurns() throws Exception {
    home = temp.resolve("home");
    project = Files.createDirectories(temp.resolve("project"));
    StringBuilder script = new StringBuilder("{'responses':[");
    String[][] turns = {{"one", "a.txt", "ok"}, {"two", "b.txt", "two"}, {"three", "a.txt", "BROKEN"},
        {"four", "c.txt", "four"}};
    for (String[] t : turns) {
      script.append("{'whenLastUser':'").append(t[0]).append("','toolCalls':[{'name':'write_file','arguments':{'path':'")
          .append(t[1]).append("','content':'").append(t[2]).append("\\n'}}]},{'whenLastUser':'").append(t[0])
          .append("','text':'Done.'},");
    }
    Path file = temp.resolve("script.json");
    Files.writeString(file, script.substring(0, script.length() - 1).replace('\'', '"') + "]}");
    for (String[] t : turns) {
      List<String> args = new ArrayList<>(List.of("exec", "--script", file.toString(), "--approval", "yolo"));
      if (!t[0].equals("one")) {
        args.addAll(List.of("--session", waymark("sessions", "--json").json().get(0).get("id").asText()));
      }
      args.add(t[0]);
      Run run = waymark(args.toArray(String[]::new));
      assertThat(run.exit()).as(run.err()).isZero();
    }
  }

  @Test
  void findsTheTurnThatBrokeTheProjectAndPrintsItsPromptDiffAndTheRevert() throws Exception {
    Map<String, String> before = files();

    Run text = waymark("checkpoints", "bisect", "--run", "! grep -qs BROKEN a.txt");
    assertThat(text.exit()).as(text.err()).isZero();
    String session = waymark("sessions", "--json").json().get(0).get("id").asText();
    String tab = waymark("checkpoints", "list", "--json").json().get("tab").asText();
    String revert = "waymark checkpoints revert 3 --session " + session + " --tab " + tab;
    assertThat(text.out()).contains("#3 is the first bad checkpoint", "Prompt of #3: three", "-ok", "+BROKEN",
        "/revert 3", "`" + revert + "`");
    Run elsewhere = waymark("checkpoints", "bisect", "--run", "! grep -qs BROKEN a.txt", "-C", project.toString());
    assertThat(elsewhere.out()).as("run from anywhere, it names the project too")
        .contains("`waymark checkpoints revert 3 -C " + project + " --session " + session + " --tab " + tab + "`");
    assertThat(text.err()).contains("#4    bad", "#0    good");

    Run json = waymark("checkpoints", "bisect", "--run", "! grep -qs BROKEN a.txt", "--good", "1", "--json");
    assertThat(json.exit()).isZero();
    assertThat(json.json().get("firstBad").asInt()).isEqualTo(3);
    assertThat(json.json().get("path")).hasSize(4);
    assertThat(json.json().get("prompt").asText()).isEqualTo("three");
    assertThat(json.json().get("files").get(0).get("path").asText()).isEqualTo("a.txt");
    assertThat(json.json().get("steps").get(0).get("verdict").asText()).isEqualTo("bad");
    assertThat(json.json().get("revert").asText()).isEqualTo(revert);

    assertThat(files()).as("the project's files are never touched").isEqualTo(before);
    assertThat(waymark("checkpoints", "list", "--json").json().get("live").asInt()).as("the tab did not move")
        .isEqualTo(4);
  }

  @Test
  void whatASeriousUserGetsWrongIsOneClearLineAndExitOne() throws Exception {
    Run never = waymark("checkpoints", "bisect", "--run", "true", "--json");
    assertThat(never.exit()).isEqualTo(1);
    assertThat(never.json().get("outcome").asText()).isEqualTo("never-fails");

    Run swapped = waymark("checkpoints", "bisect", "--run", "false", "--good", "3", "--bad", "1");
    assertThat(swapped.exit()).isEqualTo(1);
    assertThat(swapped.out()).contains("swap them: --good 1 --bad 3");

    Run noSession = waymark("checkpoints", "bisect", "--run", "true", "--session", "nosuch");
    assertThat(noSession.exit()).isEqualTo(1);
    assertThat(noSession.err()).startsWith("waymark: ").contains("nosuch");

    Run noRun = waymark("checkpoints", "bisect");
    assertThat(noRun.exit()).isEqualTo(2);
    assertThat(noRun.err()).contains("--run");

    Path settings = Files.createDirectories(temp.resolve("config/waymark")).resolve("settings.json");
    Files.writeString(settings, "{\"sandbox\": {\"mode\": \"off\"}}");
    Run off = waymark("checkpoints", "bisect", "--run", "true");
    assertThat(off.exit()).isEqualTo(1);
    assertThat(off.err()).contains("cannot bisect", "sandbox is off");
  }

  @Test
  void aBisectKilledMidRunLeavesNoCommandRunning() throws Exception {
    Process bisect = Waymark.process(temp, home, project, Waymark.command(List.of(),
        List.of("checkpoints", "bisect", "--run", "sleep 300.61"))).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    Eventually.until("the first candidate's command runs", Duration.ofSeconds(60), () -> sleeping("300.61"));
    bisect.destroyForcibly(); // SIGKILL: nothing of Waymark's runs after it
    bisect.waitFor();
    Eventually.until("the command ends with the bisect", Duration.ofSeconds(10), () -> !sleeping("300.61"));
  }

  /** Whether a {@code sleep SECONDS} runs (not a process that only names it, as the bisect's own command line does). */
  private static boolean sleeping(String seconds) {
    return ProcessHandle.allProcesses().anyMatch(p -> p.info().command().orElse("").endsWith("/sleep")
        && List.of(p.info().arguments().orElse(new String[0])).contains(seconds));
  }

  private Map<String, String> files() throws Exception {
    Map<String, String> all = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(project)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        all.put(project.relativize(p).toString(), Files.readString(p));
      }
    }
    return all;
  }

  private Run waymark(String... args) throws Exception {
    ProcessBuilder pb = Waymark.process(temp, home, project, Waymark.command(List.of(), List.of(args)));
    String unique = UUID.randomUUID().toString();
    Path out = temp.resolve("out-" + unique + ".txt");
    Path err = temp.resolve("err-" + unique + ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process p = pb.start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("waymark " + String.join(" ", args) + " did not end");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
  }
}
