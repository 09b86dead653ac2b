package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.restore.WorkTree;
import dev.waymark.core.testing.FileTrees;
import dev.waymark.core.testing.GitCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shadow repository as the real {@code git} program sees it, and the engine next to a user's
 * own git repository and git configuration. Needs {@code git} on PATH: without it every test
 * fails with a message saying so (CI installs it).
 */
@Tag("process")
class GitInteropTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path temp;
  StoreFixture fx;
  AgentTool tool;
  Path shadow;

  @BeforeAll
  static void gitIsInstalled() {
    GitCli.requireGit();
  }

  @BeforeEach
  void open() throws IOException {
    fx = new StoreFixture(temp);
    tool = new AgentTool(fx.project);
    shadow = fx.store.shadowDirectory();
  }

  @AfterEach
  void close() {
    fx.close();
  }

  // ------------------------------------------------------------------ reading tags with git

  @Test
  void everyCheckpointTagReadsBackWithGitShowByteForByte() throws IOException {
    requireUtf8FileNames();
    byte[] binaryBefore = binary(1, 70_000);
    byte[] binaryAfter = binary(2, 90_000);
    byte[] createdBinary = binary(3, 5_000);
    String spaced = "dir with space/naïve café.txt";
    String japanese = "日本語/ファイル name.bin";
    fx.writeExternally("plain.txt", "old\n");
    fx.writeExternally(spaced, "vorher ü\n");
    Files.write(fx.file("bin.dat"), binaryBefore);
    fx.writeExternally("tool.sh", "#!/bin/sh\necho old\n");
    fx.writeExternally("gone.txt", "bye\r\n");

    CheckpointTree tab = fx.store.openTab("tab1");
    Turn turn = tab.begin();
    tool.write(turn, "plain.txt", "new\n");
    tool.write(turn, spaced, "nachher ü 日本\n");
    tool.write(turn, "bin.dat", binaryAfter);
    tool.write(turn, japanese, createdBinary);
    tool.write(turn, "tool.sh", "#!/bin/sh\necho new\n");
    tool.chmod(turn, "tool.sh", "rwxr-xr-x");
    tool.symlink(turn, "link to café", spaced);
    tool.delete(turn, "gone.txt");
    Checkpoint first = turn.finish(CheckpointStatus.DONE);
    String tag = "refs/tags/waymark/tab1/1";
    assertThat(first.tag()).contains(tag);

    Map<String, GitCli.TreeEntry> tree = GitCli.lsTree(shadow, tag);
    assertThat(tree.keySet()).containsExactlyInAnyOrder(
        "pre/plain.txt", "post/plain.txt",
        "pre/" + spaced, "post/" + spaced,
        "pre/bin.dat", "post/bin.dat",
        "post/" + japanese,
        "pre/tool.sh", "post/tool.sh",
        "post/link to café",
        "pre/gone.txt",
        "waymark.json");

    assertThat(GitCli.show(shadow, tag, "pre/plain.txt")).isEqualTo("old\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, tag, "post/plain.txt")).isEqualTo("new\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, tag, "pre/" + spaced)).isEqualTo("vorher ü\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, tag, "post/" + spaced)).isEqualTo("nachher ü 日本\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, tag, "pre/bin.dat")).isEqualTo(binaryBefore);
    assertThat(GitCli.show(shadow, tag, "post/bin.dat")).isEqualTo(binaryAfter);
    assertThat(GitCli.show(shadow, tag, "post/" + japanese)).isEqualTo(createdBinary);
    assertThat(GitCli.show(shadow, tag, "pre/gone.txt")).isEqualTo("bye\r\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, tag, "post/tool.sh")).isEqualTo("#!/bin/sh\necho new\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, tag, "post/link to café")).isEqualTo(spaced.getBytes(UTF_8));

    assertThat(tree.get("pre/tool.sh").mode()).isEqualTo("100644");
    assertThat(tree.get("post/tool.sh").mode()).isEqualTo("100755");
    assertThat(tree.get("post/link to café").mode()).isEqualTo("120000");
    assertThat(tree.get("post/bin.dat").mode()).isEqualTo("100644");
    assertThat(tree.get("waymark.json").mode()).isEqualTo("100644");
    assertThat(tree.values()).extracting(GitCli.TreeEntry::type).containsOnly("blob");

    // The manifest names every change, with the same blob ids git sees, and the absent sides.
    JsonNode manifest = JSON.readTree(GitCli.show(shadow, tag, "waymark.json"));
    assertThat(manifest.get("tab").asText()).isEqualTo("tab1");
    assertThat(manifest.get("checkpoint").asInt()).isEqualTo(1);
    Map<String, JsonNode> changes = new TreeMap<>();
    manifest.get("changes").forEach(c -> changes.put(c.get("path").asText(), c));
    assertThat(changes.keySet()).containsExactlyInAnyOrder(
        "plain.txt", spaced, "bin.dat", japanese, "tool.sh", "link to café", "gone.txt");
    for (var entry : changes.entrySet()) {
      for (String side : List.of("before", "after")) {
        JsonNode version = entry.getValue().get(side);
        GitCli.TreeEntry stored = tree.get((side.equals("before") ? "pre/" : "post/") + entry.getKey());
        if (version.get("kind").asText().equals("absent")) {
          assertThat(stored).as(side + " of " + entry.getKey()).isNull();
          assertThat(version.has("blob")).isFalse();
        } else {
          assertThat(version.get("blob").asText()).as(side + " of " + entry.getKey()).isEqualTo(stored.id());
        }
      }
    }
    assertThat(changes.get(japanese).get("before").get("kind").asText()).isEqualTo("absent");
    assertThat(changes.get("gone.txt").get("after").get("kind").asText()).isEqualTo("absent");
    assertThat(changes.get("tool.sh").get("after").get("kind").asText()).isEqualTo("executable");
    assertThat(changes.get("link to café").get("after").get("kind").asText()).isEqualTo("symlink");

    // A second checkpoint's commit has the first as its parent, and its pre/ is the first's post/.
    Turn second = tab.begin();
    tool.write(second, "plain.txt", "newer\n");
    Checkpoint two = second.finish(CheckpointStatus.DONE);
    String tag2 = "refs/tags/waymark/tab1/2";
    assertThat(GitCli.shadow(shadow, "rev-parse", tag2 + "^").text().trim()).isEqualTo(first.commit().orElseThrow().name());
    assertThat(GitCli.shadow(shadow, "rev-parse", tag2).text().trim()).isEqualTo(two.commit().orElseThrow().name());
    assertThat(GitCli.shadow(shadow, "rev-parse", tag2 + ":pre/plain.txt").text())
        .isEqualTo(GitCli.shadow(shadow, "rev-parse", tag + ":post/plain.txt").text());
    assertThat(GitCli.shadow(shadow, "cat-file", "-t", tag2).text().trim()).isEqualTo("commit");
    assertThat(GitCli.shadow(shadow, "log", "-1", "--format=%an <%ae>", tag2).text().trim())
        .isEqualTo("Waymark <waymark@localhost>");
    assertThat(GitCli.shadow(shadow, "rev-parse", "--is-bare-repository").text().trim()).isEqualTo("true");
    assertEveryTagReadsBackWithGit(tab);
  }

  @Test
  void savesAndRescuesReadBackWithGit() throws IOException {
    CheckpointTree tab = fx.store.openTab("tab1");
    Turn one = tab.begin();
    tool.write(one, "a.txt", "a1\n");
    tool.write(one, "b.txt", "b1\n");
    tool.symlink(one, "ln", "a.txt");
    one.finish(CheckpointStatus.DONE);
    Turn two = tab.begin();
    tool.write(two, "a.txt", "a2\n");
    tool.delete(two, "b.txt");
    tool.write(two, "run.sh", "#!/bin/sh\n");
    tool.chmod(two, "run.sh", "rwxr-x---");
    two.finish(CheckpointStatus.DONE);
    tab.save("release-1");

    String saved = "refs/tags/waymark/tab1/saved/release-1";
    Map<String, GitCli.TreeEntry> tree = GitCli.lsTree(shadow, saved);
    assertThat(tree.keySet()).containsExactlyInAnyOrder("post/a.txt", "post/ln", "post/run.sh", "waymark.json");
    assertThat(GitCli.show(shadow, saved, "post/a.txt")).isEqualTo("a2\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, saved, "post/ln")).isEqualTo("a.txt".getBytes(UTF_8));
    assertThat(tree.get("post/ln").mode()).isEqualTo("120000");
    assertThat(tree.get("post/run.sh").mode()).isEqualTo("100755");
    JsonNode manifest = JSON.readTree(GitCli.show(shadow, saved, "waymark.json"));
    assertThat(manifest.get("save").asText()).isEqualTo("release-1");
    Map<String, String> kinds = new TreeMap<>();
    manifest.get("files").forEach(f -> kinds.put(f.get("path").asText(), f.get("kind").asText()));
    assertThat(kinds).containsExactly(Map.entry("a.txt", "regular"), Map.entry("b.txt", "absent"),
        Map.entry("ln", "symlink"), Map.entry("run.sh", "executable"));
    assertThat(GitCli.shadow(shadow, "rev-parse", saved + "^").text().trim())
        .isEqualTo(GitCli.shadow(shadow, "rev-parse", "refs/tags/waymark/tab1/2").text().trim());

    // Someone else changes a file and retargets the link; a forced restore keeps both under disk/.
    fx.writeExternally("a.txt", "user's own\r\nedit\n");
    Files.delete(fx.file("ln"));
    Files.createSymbolicLink(fx.file("ln"), Path.of("../somewhere else"));
    RestoreResult forced = tab.restore(0, RestoreMode.BOTH, true);
    assertThat(forced.applied()).isTrue();
    assertThat(forced.conflicts()).containsExactly("a.txt", "ln");
    String rescue = forced.rescueTag().orElseThrow();
    assertThat(rescue).startsWith("refs/tags/waymark/tab1/rescued/");
    Map<String, GitCli.TreeEntry> rescued = GitCli.lsTree(shadow, rescue);
    assertThat(rescued.keySet()).containsExactlyInAnyOrder("disk/a.txt", "disk/ln", "waymark.json");
    assertThat(GitCli.show(shadow, rescue, "disk/a.txt")).isEqualTo("user's own\r\nedit\n".getBytes(UTF_8));
    assertThat(GitCli.show(shadow, rescue, "disk/ln")).isEqualTo("../somewhere else".getBytes(UTF_8));
    assertThat(rescued.get("disk/ln").mode()).isEqualTo("120000");
    assertThat(fx.projectFiles()).isEmpty();
  }

  // -------------------------------------------------------------------- integrity and refs

  @Test
  void gitFsckStrictIsCleanAfterAFullSession() throws IOException {
    fx.writeExternally("shared.txt", "v0\n");
    CheckpointTree alpha = fx.store.openTab("alpha");
    fx.turn(alpha, "shared.txt", "v1\n");
    fx.turn(alpha, "dir/new.txt", "n\n");
    assertThat(alpha.undo().applied()).isTrue();
    assertThat(alpha.redo().applied()).isTrue();
    Turn three = alpha.begin();
    tool.write(three, "bin.dat", binary(7, 40_000));
    tool.symlink(three, "ln", "shared.txt");
    tool.write(three, "x.sh", "#!/bin/sh\n");
    tool.chmod(three, "x.sh", "rwxr-xr-x");
    three.finish(CheckpointStatus.DONE);
    assertThat(alpha.goTo(1).applied()).isTrue();
    CheckpointTree.BranchResult branch = alpha.branchFrom(1);
    Turn four = branch.turn().orElseThrow();
    tool.write(four, "branch.txt", "b\n");
    four.finish(CheckpointStatus.DONE);
    alpha.save("before-force");
    fx.writeExternally("branch.txt", "user edit\n");
    RestoreResult forced = alpha.restore(0, RestoreMode.BOTH, true);
    assertThat(forced.rescueTag()).isPresent();
    assertThat(alpha.goTo(3).applied()).isTrue();
    Turn cancelled = alpha.begin();
    tool.write(cancelled, "half.txt", "half\n");
    cancelled.finish(CheckpointStatus.CANCELLED);

    CheckpointTree beta = fx.store.openTab("beta");
    fx.turn(beta, "beta.txt", "b\n");
    beta.save("s");
    fx.store.collectGarbage();
    CheckpointTree gamma = fx.store.openTab("gamma");
    fx.turn(gamma, "gamma.txt", "g\n");
    beta.release(); // a tab held open is in use, and not deleted
    fx.store.deleteTab("beta");

    // --no-dangling: deleting a tab leaves its commits unreachable until gc prunes them, by design.
    GitCli.Result fsck = GitCli.run(shadow, "--git-dir=" + shadow, "fsck", "--strict", "--full", "--no-dangling", "--no-progress");
    assertThat(fsck.exit()).as("fsck exit; stderr: %s", fsck.err()).isZero();
    assertThat(fsck.text()).isEmpty();
    assertThat(fsck.err().lines().filter(l -> !l.startsWith("notice:")).collect(Collectors.toList()))
        .as("fsck messages other than notices").isEmpty();
    assertThat(GitCli.shadow(shadow, "tag", "-l", "waymark/alpha/*").lines()).containsExactly(
        "waymark/alpha/1", "waymark/alpha/2", "waymark/alpha/3", "waymark/alpha/4", "waymark/alpha/5",
        forced.rescueTag().orElseThrow().substring("refs/tags/".length()),
        "waymark/alpha/saved/before-force");
    assertThat(GitCli.shadow(shadow, "for-each-ref", "--format=%(refname)").lines())
        .allMatch(ref -> ref.startsWith("refs/tags/waymark/alpha/") || ref.startsWith("refs/tags/waymark/gamma/"));
    assertEveryTagReadsBackWithGit(alpha); // packed by gc or loose, all read back
    assertEveryTagReadsBackWithGit(gamma);
  }

  @Test
  void gitTagListsExactlyTheTabsTagsAndDeletingATabRemovesOnlyThatTabsRefs() throws IOException {
    CheckpointTree tab1 = fx.store.openTab("tab1");
    CheckpointTree tab10 = fx.store.openTab("tab10");
    CheckpointTree tab1x = fx.store.openTab("tab1-x");
    fx.turn(tab1, "a.txt", "1\n");
    fx.turn(tab10, "b.txt", "10\n");
    fx.turn(tab1x, "c.txt", "x\n");
    tab1.save("s1");
    fx.store.collectGarbage(); // the refs so far are packed, the later ones loose
    fx.turn(tab1, "a.txt", "2\n");
    fx.turn(tab10, "b.txt", "11\n");
    // Someone inspecting the store with git leaves a branch of their own.
    String commit = GitCli.shadow(shadow, "rev-parse", "refs/tags/waymark/tab1/1").text().trim();
    GitCli.shadow(shadow, "update-ref", "refs/heads/inspect", commit);

    assertThat(GitCli.shadow(shadow, "tag", "-l", "waymark/tab1/*").lines())
        .containsExactly("waymark/tab1/1", "waymark/tab1/2", "waymark/tab1/saved/s1");
    assertThat(GitCli.shadow(shadow, "tag", "-l", "waymark/tab10/*").lines())
        .containsExactly("waymark/tab10/1", "waymark/tab10/2");
    assertThat(fx.store.tabIds()).containsExactly("tab1", "tab1-x", "tab10");

    tab1.release(); // a tab held open is in use, and not deleted
    fx.store.deleteTab("tab1");

    assertThat(GitCli.shadow(shadow, "tag", "-l", "waymark/tab1/*").lines()).isEmpty();
    assertThat(GitCli.shadow(shadow, "for-each-ref", "--format=%(refname)").lines()).containsExactly(
        "refs/heads/inspect",
        "refs/tags/waymark/tab1-x/1",
        "refs/tags/waymark/tab10/1", "refs/tags/waymark/tab10/2");
    assertThat(fx.store.tabIds()).containsExactly("tab1-x", "tab10");
    assertThat(GitCli.show(shadow, "refs/heads/inspect", "post/a.txt")).isEqualTo("1\n".getBytes(UTF_8));
    assertThat(fx.read("a.txt")).isEqualTo("2\n"); // deleting a tab never touches the files
  }

  // ------------------------------------------------------------ the user's own repository

  @Test
  void aUsersGitRepositoryIsLeftByteForByteUnchanged() throws IOException {
    Path repo = fx.project;
    createUsersRepository(repo);
    RepoState before = RepoState.of(repo);
    SortedMap<String, String> workBefore = workTree(repo);
    assertThat(before.status()).contains("1 .M", "1 M.", "? notes.txt", "! build/");
    assertThat(before.stash()).contains("wip readme");

    CheckpointTree tab = fx.store.openTab("work");
    Turn one = tab.begin();
    tool.write(one, "src/App.java", "class App { /* agent */ }\n");
    tool.write(one, "src/Util.java", "class Util {}\n");
    one.finish(CheckpointStatus.DONE);
    Turn two = tab.begin();
    tool.write(two, "notes.txt", "notes, edited by the agent\n");
    tool.delete(two, "staged.txt");
    tool.write(two, "README.md", "# Agent readme\r\n");
    two.finish(CheckpointStatus.DONE);
    Turn three = tab.begin();
    tool.write(three, "docs/guide.md", "guide\n");
    tool.write(three, "build/out.log", "rebuilt\n");
    tool.chmod(three, "build.sh", "rwxr-xr-x");
    three.finish(CheckpointStatus.DONE);
    assertThat(RepoState.of(repo).gitDir()).isEqualTo(before.gitDir());

    assertThat(tab.undo().applied()).isTrue();
    assertThat(tab.undo().applied()).isTrue();
    assertThat(tab.redo().applied()).isTrue();
    assertThat(tab.goTo(3).applied()).isTrue();
    assertThat(RepoState.of(repo).gitDir()).isEqualTo(before.gitDir());
    Turn four = tab.branchFrom(1).turn().orElseThrow();
    tool.write(four, "branch.txt", "b\n");
    four.finish(CheckpointStatus.DONE);
    tab.save("keep");
    fx.writeExternally("src/Util.java", "class Util { /* the user's */ }\n");
    RestoreResult forced = tab.restore(0, RestoreMode.BOTH, true);
    assertThat(forced.applied()).isTrue();
    assertThat(forced.conflicts()).containsExactly("src/Util.java");

    RepoState after = RepoState.of(repo);
    assertThat(after.gitDir()).as("every file under .git, with bytes, modes and mtimes").isEqualTo(before.gitDir());
    assertThat(after.indexSha256()).isEqualTo(before.indexSha256());
    assertThat(after.config()).isEqualTo(before.config());
    assertThat(after.status()).isEqualTo(before.status());
    assertThat(after.refs()).isEqualTo(before.refs());
    assertThat(after.stash()).isEqualTo(before.stash());
    assertThat(workTree(repo)).as("the working tree is back as it was").isEqualTo(workBefore);
  }

  @Test
  void aProjectInASubdirectoryOfAGitRepositoryLeavesTheRepositoryUnchanged() throws IOException {
    Path repo = temp.resolve("monorepo");
    Files.createDirectories(repo.resolve("service"));
    Files.writeString(repo.resolve("service/Main.java"), "class Main {}\n");
    Files.writeString(repo.resolve("top.txt"), "top\n");
    GitCli.ok(repo, "init", "-q", "-b", "main");
    GitCli.ok(repo, "add", "-A");
    GitCli.ok(repo, "commit", "-q", "-m", "initial");
    RepoState before = RepoState.of(repo);
    Path home = temp.resolve("monorepo-waymark-home");
    try (ShadowStore store = ShadowStore.open(repo.resolve("service"), new WaymarkHome(home), RetentionPolicy.DEFAULT)) {
      AgentTool inService = new AgentTool(repo.resolve("service"));
      CheckpointTree tab = store.openTab("svc");
      Turn turn = tab.begin();
      inService.write(turn, "Main.java", "class Main { int x; }\n");
      inService.write(turn, "new/Helper.java", "class Helper {}\n");
      turn.finish(CheckpointStatus.DONE);
      assertThat(GitCli.run(repo, "--no-optional-locks", "status", "--porcelain=v2", "--untracked-files=all").text())
          .contains("service/Main.java", "service/new/Helper.java").doesNotContain(".waymark");
      assertThat(tab.undo().applied()).isTrue();
      assertThat(tab.redo().applied()).isTrue();
      assertThat(tab.undo().applied()).isTrue();
      assertThat(store.shadowDirectory()).startsWith(home);
    }
    RepoState after = RepoState.of(repo);
    assertThat(after).isEqualTo(before);
    assertThat(FileTrees.listing(repo.resolve("service"))).containsExactly("Main.java");
  }

  @Test
  void aProjectThatIsNotAGitRepositoryGainsNoFileTheTabDidNotWrite() throws IOException {
    fx.writeExternally("keep.txt", "keep\n");
    CheckpointTree tab = fx.store.openTab("plain");
    List<String> start = FileTrees.listing(fx.project);
    fx.turn(tab, "keep.txt", "changed\n");
    fx.turn(tab, "deep/er/file.txt", "x\n");
    Turn three = tab.begin();
    tool.symlink(three, "ln", "keep.txt");
    tool.write(three, "big.bin", binary(9, 200_000));
    three.finish(CheckpointStatus.DONE);
    List<String> full = FileTrees.listing(fx.project);
    assertThat(full).containsExactly("big.bin", "deep", "deep/er", "deep/er/file.txt", "keep.txt", "ln");

    tab.undo();
    assertThat(FileTrees.listing(fx.project)).containsExactly("deep", "deep/er", "deep/er/file.txt", "keep.txt");
    tab.undoTo(0);
    assertThat(FileTrees.listing(fx.project)).isEqualTo(start);
    tab.goTo(3);
    assertThat(FileTrees.listing(fx.project)).isEqualTo(full);
    fx.writeExternally("deep/er/file.txt", "someone else\n");
    assertThat(tab.restore(1, RestoreMode.FILES, true).applied()).isTrue();
    assertThat(FileTrees.listing(fx.project)).containsExactly("keep.txt");
    tab.save("s");

    assertThat(Files.exists(fx.project.resolve(".git"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    try (Stream<Path> all = Files.walk(temp)) {
      assertThat(all.map(p -> p.getFileName().toString()))
          .noneMatch(name -> name.endsWith(WorkTree.TEMP_SUFFIX));
    }
    // Besides the project, only the Waymark home changed: nothing next to them, nothing in a parent.
    try (Stream<Path> top = Files.list(temp)) {
      assertThat(top.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("project", "home");
    }
    assertThat(shadow).startsWith(fx.home);
  }

  // ------------------------------------------------------------- process environment (child JVM)

  @Test
  void theEngineRunsWithGitAbsentFromPath() throws IOException, InterruptedException {
    Path emptyBin = Files.createDirectories(temp.resolve("empty-bin"));
    Path userHome = Files.createDirectories(temp.resolve("user-home"));
    Map<String, String> env = new HashMap<>();
    env.put("PATH", emptyBin.toString());
    env.put("HOME", userHome.toString());
    env.put("XDG_CONFIG_HOME", null);
    ChildRun run = runChild(env, userHome, "gitless");

    assertThat(run.exit()).as("child JVM exit; output:%n%s%nerrors:%n%s", run.out(), run.err()).isZero();
    assertChildSessionOnDisk();
    assertThat(GitCli.shadow(shadow, "tag", "-l", "waymark/gitless/*").lines())
        .containsExactly("waymark/gitless/1", "waymark/gitless/2", "waymark/gitless/saved/child");
    assertThat(GitCli.show(shadow, "refs/tags/waymark/gitless/2", "post/crlf.txt")).isEqualTo(ChildJvmSession.CRLF_EDITED);
  }

  @Test
  void theUsersGitConfigurationHasNoEffectAndNothingIsWrittenUnderTheirHome() throws IOException, InterruptedException {
    Path tripwires = Files.createDirectories(temp.resolve("tripwire-bin"));
    Path tripped = temp.resolve("tripwire.log");
    for (String program : List.of("git", "sh", "bash", "which", "gpg", "gpg2", "ssh", "git-lfs", "evil-clean",
        "evil-smudge", "fsmonitor", "askpass")) {
      tripwire(tripwires.resolve(program), tripped);
    }
    // Sanity: a tripwire that runs leaves its mark.
    assertThat(new ProcessBuilder(tripwires.resolve("git").toString(), "config", "--system", "-l").start().waitFor()).isEqualTo(1);
    assertThat(Files.readString(tripped)).contains("git config --system -l");
    Files.delete(tripped);
    Path hooks = Files.createDirectories(temp.resolve("hostile-hooks"));
    for (String hook : List.of("pre-commit", "commit-msg", "post-commit", "reference-transaction", "post-checkout",
        "post-rewrite", "pre-auto-gc")) {
      tripwire(hooks.resolve(hook), tripped);
    }
    Path attributes = temp.resolve("hostile-attributes");
    Files.writeString(attributes, "* filter=evil text eol=crlf\n");
    String hostile = hostileConfig(tripwires, hooks, attributes);
    Path userHome = Files.createDirectories(temp.resolve("user-home"));
    Path xdg = Files.createDirectories(temp.resolve("xdg-config"));
    Files.writeString(userHome.resolve(".gitconfig"), hostile);
    Files.createDirectories(userHome.resolve(".config/git"));
    Files.writeString(userHome.resolve(".config/git/config"), hostile);
    Files.writeString(userHome.resolve(".config/git/attributes"), "* text eol=crlf\n");
    Files.createDirectories(xdg.resolve("git"));
    Files.writeString(xdg.resolve("git/config"), hostile);
    Files.writeString(xdg.resolve("git/attributes"), "* text eol=crlf\n");
    // A repository that git's environment variables point at, which the engine must ignore.
    Path decoy = Files.createDirectories(temp.resolve("decoy"));
    GitCli.ok(decoy, "init", "-q", "-b", "main");

    // Sanity: the real git, given the same environment, does read these settings.
    Map<String, String> gitWithUserConfig = new HashMap<>();
    gitWithUserConfig.put("HOME", userHome.toString());
    gitWithUserConfig.put("XDG_CONFIG_HOME", xdg.toString());
    gitWithUserConfig.put("GIT_CONFIG_GLOBAL", null);
    assertThat(GitCli.run(decoy, gitWithUserConfig, "config", "--global", "--get", "commit.gpgsign").ok().text().trim())
        .isEqualTo("true");
    assertThat(GitCli.run(decoy, gitWithUserConfig, "config", "--get", "core.autocrlf").ok().text().trim())
        .isEqualTo("true");

    SortedMap<String, String> homeBefore = FileTrees.snapshot(userHome, true);
    SortedMap<String, String> xdgBefore = FileTrees.snapshot(xdg, true);
    SortedMap<String, String> decoyBefore = FileTrees.snapshot(decoy, true);
    Map<String, String> env = new HashMap<>();
    env.put("PATH", tripwires.toString());
    env.put("HOME", userHome.toString());
    env.put("XDG_CONFIG_HOME", xdg.toString());
    env.put("GIT_DIR", decoy.resolve(".git").toString());
    env.put("GIT_WORK_TREE", decoy.toString());
    env.put("GIT_INDEX_FILE", decoy.resolve(".git/index").toString());
    env.put("GIT_OBJECT_DIRECTORY", decoy.resolve(".git/objects").toString());
    env.put("GIT_CONFIG_GLOBAL", userHome.resolve(".gitconfig").toString());
    env.put("GIT_CONFIG_COUNT", "1");
    env.put("GIT_CONFIG_KEY_0", "commit.gpgSign");
    env.put("GIT_CONFIG_VALUE_0", "true");
    env.put("GIT_CONFIG_PARAMETERS", "'core.autocrlf'='true'");
    ChildRun run = runChild(env, userHome, "hostile");

    assertThat(run.exit()).as("child JVM exit; output:%n%s%nerrors:%n%s", run.out(), run.err()).isZero();
    assertThat(run.out()).contains("userHome=" + userHome); // JGit looked in the hostile home
    assertThat(tripped).as("a program or hook was run: %s", tripped).doesNotExist();
    assertChildSessionOnDisk();

    String tag = "refs/tags/waymark/hostile/1";
    for (String ref : List.of(tag, "refs/tags/waymark/hostile/2", "refs/tags/waymark/hostile/saved/child")) {
      String commit = GitCli.shadow(shadow, "cat-file", "commit", ref).text();
      assertThat(commit).as("commit of %s", ref).doesNotContain("gpgsig").doesNotContain("Hostile")
          .contains("author Waymark <waymark@localhost>");
    }
    assertThat(GitCli.shadow(shadow, "cat-file", "blob", tag + ":post/crlf.txt").out()).isEqualTo(ChildJvmSession.CRLF);
    assertThat(GitCli.shadow(shadow, "cat-file", "blob", "refs/tags/waymark/hostile/2:pre/crlf.txt").out())
        .isEqualTo(ChildJvmSession.CRLF);
    assertThat(GitCli.shadow(shadow, "cat-file", "blob", "refs/tags/waymark/hostile/2:post/crlf.txt").out())
        .isEqualTo(ChildJvmSession.CRLF_EDITED);
    assertThat(GitCli.shadow(shadow, "cat-file", "blob", tag + ":post/lf.txt").out()).isEqualTo(ChildJvmSession.LF);
    assertThat(GitCli.lsTree(shadow, tag).get("post/run.sh").mode()).isEqualTo("100755");
    assertThat(GitCli.shadow(shadow, "symbolic-ref", "HEAD").text()).doesNotContain("hostile");
    assertThat(Files.readString(shadow.resolve("config"))).doesNotContain("hostile").doesNotContain("autocrlf");

    assertThat(FileTrees.snapshot(userHome, true)).as("the user's home").isEqualTo(homeBefore);
    assertThat(FileTrees.snapshot(xdg, true)).as("XDG_CONFIG_HOME").isEqualTo(xdgBefore);
    assertThat(FileTrees.snapshot(decoy, true)).as("the repository GIT_DIR names").isEqualTo(decoyBefore);
    assertThat(userHome.resolve(".config/jgit")).doesNotExist();
    assertThat(xdg.resolve("jgit")).doesNotExist();
  }

  @Test
  void shadowDirectoriesAreReadableByTheirOwnerOnly() throws IOException {
    fx.turn(fx.store.openTab("t"), "a.txt", "a\n");
    Path storeDir = shadow.getParent();
    for (Path dir : List.of(shadow, storeDir, storeDir.getParent())) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir, LinkOption.NOFOLLOW_LINKS)))
          .as("mode of %s", dir).isEqualTo("rwx------");
    }
    assertThat(storeDir.getParent()).isEqualTo(fx.home.resolve("projects"));
    assertThat(shadow.getFileName().toString()).isEqualTo("shadow.git");
  }

  // ---------------------------------------------------------------------------- helpers

  /**
   * For every tagged checkpoint of {@code tab}: git's tree holds exactly {@code pre/} and
   * {@code post/} for each change that had content, plus the manifest, with the bytes and modes
   * the engine stored.
   */
  private void assertEveryTagReadsBackWithGit(CheckpointTree tab) throws IOException {
    int tagged = 0;
    for (Checkpoint cp : tab.checkpoints()) {
      if (cp.tag().isEmpty()) {
        continue;
      }
      tagged++;
      String tag = cp.tag().get();
      Map<String, GitCli.TreeEntry> tree = GitCli.lsTree(shadow, tag);
      List<String> expected = new ArrayList<>(List.of("waymark.json"));
      for (FileChange change : cp.changes()) {
        for (String side : List.of("pre/", "post/")) {
          FileVersion version = side.equals("pre/") ? change.before() : change.after();
          if (!version.exists()) {
            continue;
          }
          String path = side + change.path();
          expected.add(path);
          assertThat(GitCli.show(shadow, tag, path)).as("%s:%s", tag, path).isEqualTo(fx.store.repo().read(version.blob()));
          assertThat(tree.get(path).mode()).as("mode of %s:%s", tag, path).isEqualTo(version.kind().gitMode().toString());
          assertThat(tree.get(path).id()).isEqualTo(version.blob().name());
        }
      }
      assertThat(tree.keySet()).as("tree of %s", tag).containsExactlyInAnyOrderElementsOf(expected);
    }
    assertThat(tagged).as("tagged checkpoints of %s", tab.tabId()).isPositive();
  }

  /** Everything about a user's repository that must not change, read without writing to it. */
  record RepoState(SortedMap<String, String> gitDir, String indexSha256, String config, String status,
      String refs, String stash) {
    static RepoState of(Path repo) {
      // The listing first: the git commands below run with --no-optional-locks and write nothing.
      SortedMap<String, String> gitDir = FileTrees.snapshot(repo.resolve(".git"), true);
      Path index = repo.resolve(".git/index");
      String status = GitCli.ok(repo, "--no-optional-locks", "status", "--porcelain=v2", "--branch",
          "--untracked-files=all", "--ignored").text();
      String refs = GitCli.ok(repo, "--no-optional-locks", "for-each-ref").text();
      String stash = GitCli.ok(repo, "--no-optional-locks", "stash", "list").text();
      try {
        return new RepoState(gitDir, FileTrees.sha256(index), Files.readString(repo.resolve(".git/config")),
            status, refs, stash);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static SortedMap<String, String> workTree(Path repo) {
    return FileTrees.snapshot(repo, false, rel -> !rel.equals(".git") && !rel.startsWith(".git/"));
  }

  /** A repository with history, a stash, staged, unstaged, untracked and ignored changes. */
  private void createUsersRepository(Path repo) throws IOException {
    GitCli.ok(repo, "init", "-q", "-b", "main");
    fx.writeExternally("README.md", "# Readme\n");
    fx.writeExternally("src/App.java", "class App {}\n");
    fx.writeExternally("staged.txt", "staged v1\n");
    fx.writeExternally("build.sh", "#!/bin/sh\nmake\n");
    fx.writeExternally(".gitattributes", "*.txt text eol=lf\n*.md text eol=crlf\n");
    fx.writeExternally(".gitignore", "build/\n");
    GitCli.ok(repo, "add", "-A");
    GitCli.ok(repo, "commit", "-q", "-m", "initial");
    GitCli.ok(repo, "tag", "v1");
    fx.writeExternally("README.md", "# Readme, work in progress\n");
    GitCli.ok(repo, "stash", "push", "-q", "-m", "wip readme");
    fx.writeExternally("src/App.java", "class App { int unstaged; }\n");
    fx.writeExternally("staged.txt", "staged v2\n");
    GitCli.ok(repo, "add", "staged.txt");
    fx.writeExternally("notes.txt", "untracked notes\n");
    fx.writeExternally("build/out.log", "ignored output\n");
  }

  private void assertChildSessionOnDisk() throws IOException {
    assertThat(tool.bytes("crlf.txt")).isEqualTo(ChildJvmSession.CRLF);
    assertThat(tool.bytes("lf.txt")).isEqualTo(ChildJvmSession.LF);
    assertThat(tool.bytes("run.sh")).isEqualTo(ChildJvmSession.SCRIPT);
    assertThat(tool.permissions("run.sh")).isEqualTo("rwxr-xr-x");
    assertThat(FileTrees.listing(fx.project)).containsExactly("crlf.txt", "lf.txt", "run.sh");
  }

  record ChildRun(int exit, String out, String err) {}

  /** Runs {@link ChildJvmSession} on the fixture's project in a new JVM with {@code env} applied. */
  private ChildRun runChild(Map<String, String> env, Path userHome, String tabId) throws IOException, InterruptedException {
    // The child opens the same store while this JVM keeps its handle: stores are shared across processes.
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    Path cwd = Files.createDirectories(temp.resolve("child-cwd"));
    List<String> command = new ArrayList<>(List.of(java.toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1",
        "-XX:+UseSerialGC", "-Duser.home=" + userHome, "-cp", System.getProperty("java.class.path"),
        ChildJvmSession.class.getName(), fx.project.toString(), fx.home.toString(), tabId));
    ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("GIT_"));
    env.forEach((key, value) -> {
      if (value == null) {
        pb.environment().remove(key);
      } else {
        pb.environment().put(key, value);
      }
    });
    Path out = temp.resolve("child-" + tabId + ".out");
    Path err = temp.resolve("child-" + tabId + ".err");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    Process process = pb.start();
    if (!process.waitFor(180, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child JVM did not finish within 180 s: " + Files.readString(err));
    }
    return new ChildRun(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static void tripwire(Path program, Path log) throws IOException {
    Files.writeString(program, "#!/bin/sh\necho \"$0 $*\" >> '" + log + "'\nexit 1\n");
    Files.setPosixFilePermissions(program, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static String hostileConfig(Path bin, Path hooks, Path attributes) {
    Map<String, List<String>> sections = new LinkedHashMap<>();
    sections.put("core", List.of("autocrlf = true", "eol = crlf", "safecrlf = true", "symlinks = false",
        "filemode = false", "hooksPath = " + hooks, "attributesFile = " + attributes, "fsmonitor = " + bin.resolve("fsmonitor"),
        "sshCommand = " + bin.resolve("ssh"), "askPass = " + bin.resolve("askpass"), "bare = false"));
    sections.put("commit", List.of("gpgSign = true"));
    sections.put("tag", List.of("gpgSign = true"));
    sections.put("gpg", List.of("program = " + bin.resolve("gpg")));
    sections.put("user", List.of("name = Hostile Config", "email = hostile@example.com", "signingKey = DEADBEEF"));
    sections.put("init", List.of("defaultBranch = hostile-branch"));
    sections.put("filter \"evil\"", List.of("clean = " + bin.resolve("evil-clean"), "smudge = " + bin.resolve("evil-smudge"),
        "required = true"));
    sections.put("gc", List.of("auto = 1", "autoPackLimit = 1", "autoDetach = true"));
    StringBuilder config = new StringBuilder();
    sections.forEach((name, lines) -> {
      config.append('[').append(name).append("]\n");
      lines.forEach(line -> config.append('\t').append(line).append('\n'));
    });
    return config.toString();
  }

  private static void requireUtf8FileNames() {
    String encoding = System.getProperty("sun.jnu.encoding");
    assertThat(encoding).as("file names are encoded as %s: run the tests under a UTF-8 locale (LANG=C.UTF-8)", encoding)
        .isEqualToIgnoringCase("UTF-8");
  }

  static byte[] binary(long seed, int size) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    for (int i = 0; i < 256 && i < size; i++) {
      bytes[i] = (byte) i; // every byte value, NUL and CR LF included
    }
    return bytes;
  }
}
