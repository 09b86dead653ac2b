package dev.waymark.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sessions export} in one clone of a git project and {@code sessions import} in another,
 * each with its own Waymark home, as two people would; the bundle and the imported tags are read
 * with the real git.
 */
class SessionShareIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  Path first;
  Path second;
  Path bundle;
  String session;
  String tab;

  record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }
  }

  /** Three turns in the first clone, the third a branch from #1: the live files are a.txt "one" and c.txt. */
  @BeforeEach
  void aSessionWithABranchInTheFirstClone() throws Exception {
    first = Files.createDirectories(temp.resolve("first"));
    git(first, "init", "-q");
    Files.writeString(first.resolve("a.txt"), "base\n");
    git(first, "add", ".");
    git(first, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "base");
    second = temp.resolve("second");
    git(temp, "clone", "-q", first.toString(), second.toString());
    Path script = temp.resolve("script.json");
    Files.writeString(script, ("{'responses':["
        + "{'whenLastUser':'first','toolCalls':[{'name':'write_file','arguments':{'path':'a.txt','content':'one\\n'}}]},"
        + "{'whenLastUser':'first','text':'Wrote a.'},"
        + "{'whenLastUser':'second','toolCalls':[{'name':'write_file','arguments':{'path':'b.txt','content':'two\\n'}}]},"
        + "{'whenLastUser':'second','text':'Wrote b.'},"
        + "{'whenLastUser':'branch','toolCalls':[{'name':'write_file','arguments':{'path':'c.txt','content':'c\\n'}}]},"
        + "{'whenLastUser':'branch','text':'Wrote c.'}]}").replace('\'', '"'));
    ok(waymark(first, "one", "exec", "--script", script.toString(), "--approval", "yolo", "first"));
    session = waymark(first, "one", "sessions", "--json").json().get(0).get("id").asText();
    ok(waymark(first, "one", "exec", "--script", script.toString(), "--approval", "yolo", "--session", session, "second"));
    ok(waymark(first, "one", "exec", "--script", script.toString(), "--approval", "yolo", "--session", session, "--from",
        "1", "branch"));
    tab = waymark(first, "one", "checkpoints", "list", "--json").json().get("tab").asText();
    bundle = temp.resolve("session.bundle");
  }

  @Test
  void theSecondCloneOpensEveryCheckpointBranchAndPromptOnceItsFilesAreTheBase() throws Exception {
    Run export = ok(waymark(first, "one", "sessions", "export", session, bundle.toString(), "--json"));
    assertThat(export.json().get("tags").asInt()).isEqualTo(3);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(bundle)))
        .as("it carries the conversation: private, as session files are").isEqualTo("rw-------");
    String heads = git(temp, "bundle", "list-heads", bundle.toString());
    assertThat(heads).contains("refs/tags/waymark/" + tab + "/1", "refs/tags/waymark/" + tab + "/2",
        "refs/tags/waymark/" + tab + "/3");
    assertThat(git(second, "bundle", "verify", bundle.toString())).contains("okay");

    Run refused = waymark(second, "two", "sessions", "import", bundle.toString());
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.err()).contains("a.txt: content differs", "c.txt: missing here", "Nothing was imported",
        "git stash");
    assertThat(Waymark.shadow(temp.resolve("two"))).as("a refused import brings no tag")
        .satisfiesAnyOf(s -> assertThat(s).isNull(), s -> assertThat(Waymark.git(s, "tag", "-l").out()).isBlank());

    Files.copy(first.resolve("a.txt"), second.resolve("a.txt"), StandardCopyOption.REPLACE_EXISTING);
    Files.copy(first.resolve("c.txt"), second.resolve("c.txt"));
    Run imported = ok(waymark(second, "two", "sessions", "import", bundle.toString(), "--json"));
    assertThat(imported.json().get("session").asText()).isEqualTo(session);
    JsonNode listed = ok(waymark(second, "two", "sessions", "list", "--json")).json().get(0);
    assertThat(imported.json().get("checkpoints").asInt()).as("counted as `sessions list` counts them, without #0")
        .isEqualTo(listed.get("checkpoints").asInt()).isEqualTo(3);
    assertThat(Waymark.gitOk(temp.resolve("two"), "show", "refs/tags/waymark/" + tab + "/2:post/b.txt")).isEqualTo("two\n");

    JsonNode list = ok(waymark(second, "two", "checkpoints", "list", "--json")).json();
    assertThat(list.get("live").asInt()).isEqualTo(3);
    assertThat(list.get("checkpoints").get(2).get("prompt").asText()).isEqualTo("second");
    assertThat(list.get("checkpoints").get(3).get("parent").asInt()).as("the branch").isEqualTo(1);
    ok(waymark(second, "two", "checkpoints", "goto", "2"));
    assertThat(Files.readString(second.resolve("b.txt"))).isEqualTo("two\n");
    assertThat(second.resolve("c.txt")).doesNotExist();

    Run twice = waymark(second, "two", "sessions", "import", bundle.toString());
    assertThat(twice.exit()).isEqualTo(1);
    assertThat(twice.err()).contains("is in this project already", "sessions delete " + session);
  }

  @Test
  void aFileThatIsNoBundleOrNoSessionIsOneClearLine() throws Exception {
    Path garbage = Files.writeString(temp.resolve("garbage.bundle"), "not a bundle\n");
    Run bad = waymark(second, "two", "sessions", "import", garbage.toString());
    assertThat(bad.exit()).isEqualTo(1);
    assertThat(bad.err()).contains("cannot be read as a Waymark bundle");

    ok(waymark(first, "one", "sessions", "export", session, bundle.toString()));
    byte[] whole = Files.readAllBytes(bundle);
    Path cut = Files.write(temp.resolve("cut.bundle"), Arrays.copyOf(whole, whole.length / 2));
    Run truncated = waymark(second, "two", "sessions", "import", cut.toString());
    assertThat(truncated.exit()).isEqualTo(1);
    assertThat(truncated.err()).contains("cannot be read as a Waymark bundle");

    Run unknown = waymark(first, "one", "sessions", "export", "nosuch", temp.resolve("x.bundle").toString());
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("No session \"nosuch\"");
    assertThat(temp.resolve("x.bundle")).doesNotExist();
  }

  private static Run ok(Run run) {
    assertThat(run.exit()).as(run.err()).isZero();
    return run;
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as("git %s: %s", List.of(args), out).isZero();
    return out;
  }

  /** Waymark in {@code project} with its data in the home {@code home} (one per person). */
  private Run waymark(Path project, String home, String... args) throws Exception {
    ProcessBuilder pb = Waymark.process(temp, temp.resolve(home), project, Waymark.command(List.of(), List.of(args)));
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
