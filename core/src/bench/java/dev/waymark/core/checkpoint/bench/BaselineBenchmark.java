package dev.waymark.core.checkpoint.bench;

import dev.waymark.core.checkpoint.BenchAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.ResetCommand.ResetType;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The whole-tree snapshot baseline (the approach of Gemini CLI, Cline and Kilo Code), through
 * JGit: a shadow repository whose git directory lies outside the project and whose work tree is
 * the project. A checkpoint stages the whole work tree ({@code git add --all .}) and commits; a
 * restore is {@code git reset --hard <snapshot>}.
 *
 * <p>To be fair to it: the shadow index is warm (the first full snapshot and three incremental
 * ones are taken before anything is measured, so stat data is clean and only changed files are
 * hashed; JMH's warm-up iterations add more); JGit runs under the engine's own isolation; the restore is a bare {@code reset --hard}
 * (the tools also run {@code git clean}, which would cost a second walk of the tree).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class BaselineBenchmark {
  private static final PersonIdent IDENT =
      new PersonIdent("Baseline", "baseline@localhost", Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);

  @Param({"1000", "10000", "100000"})
  public int files;

  @Param({"1", "10"})
  public int changed;

  private Path temp;
  private Path project;
  private Repository repo;
  private Git git;
  private Edits edits;
  private ObjectId below;
  private ObjectId top;
  private ObjectId at;

  @Setup(Level.Trial)
  public void setUp() throws IOException, GitAPIException {
    BenchAccess.isolateGit();
    temp = Files.createTempDirectory("waymark-baseline-");
    project = temp.resolve("project");
    long t0 = System.nanoTime();
    ProjectGenerator.Project generated = ProjectGenerator.generate(project, files, 42);
    long t1 = System.nanoTime();
    Path gitDir = temp.resolve("shadow.git");
    repo = new FileRepositoryBuilder().setGitDir(gitDir.toFile()).setWorkTree(project.toFile()).build();
    repo.create(true); // bare: no .git file is written into the project
    if (repo.isBare() || Files.exists(project.resolve(".git"))) {
      throw new IllegalStateException("the shadow repository must have the project as its work tree and leave no .git in it");
    }
    if (BenchAccess.leaked(repo.getConfig())) {
      throw new IllegalStateException("the shadow repository reads the user's git config");
    }
    git = Git.wrap(repo);
    edits = new Edits(project, ProjectGenerator.pick(generated.files(), changed, 7));

    snapshot("initial snapshot"); // the full first snapshot: not measured
    long t2 = System.nanoTime();
    edits.writeAll(); // warm the index: clean stat data, racy entries re-hashed
    snapshot("warm-up");
    if (files < 100_000) { // two more whole-tree snapshots: too slow to repeat in every 100k trial
      checkDeletionsAreStaged();
    }
    System.out.printf(Locale.ROOT, "%n[setup] generated %,d files (%,d KB) in %.1f s; first full snapshot %.1f s%n",
        files, generated.bytes() / 1024, (t1 - t0) / 1e9, (t2 - t1) / 1e9);

    below = snapshot("below");
    edits.writeAll();
    top = snapshot("top");
    at = top;
    byte[] after = edits.current(0);
    restore(below);
    restore(top);
    if (!Arrays.equals(after, edits.current(0))) {
      throw new IllegalStateException("reset --hard below, then top, did not bring the file back");
    }
  }

  /** {@code add --all} must stage a deletion as git's does, or the baseline would not be a real checkpoint. */
  private void checkDeletionsAreStaged() throws IOException, GitAPIException {
    Path extra = project.resolve("baseline-deletion-check.txt");
    Files.writeString(extra, "x\n");
    snapshot("deletion check 1");
    Files.delete(extra);
    ObjectId commit = snapshot("deletion check 2");
    try (var walk = new RevWalk(repo)) {
      var tree = walk.parseCommit(commit).getTree();
      if (TreeWalk.forPath(repo, "baseline-deletion-check.txt", tree) != null) {
        throw new IllegalStateException("add --all did not stage a deleted file");
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    repo.close();
    ProjectGenerator.deleteTree(temp);
  }

  /** One whole-tree snapshot: stage everything (new, changed and deleted files) and commit. */
  private ObjectId snapshot(String message) throws GitAPIException {
    git.add().addFilepattern(".").setAll(true).call();
    RevCommit commit = git.commit().setMessage(message).setAuthor(IDENT).setCommitter(IDENT)
        .setSign(false).setNoVerify(true).setAllowEmpty(true).call();
    at = commit;
    return commit;
  }

  private ObjectId restore(ObjectId to) throws GitAPIException {
    git.reset().setMode(ResetType.HARD).setRef(to.name()).call();
    at = to;
    return to;
  }

  /** Before each measured undo: stand on the snapshot to undo. */
  @State(Scope.Thread)
  public static class AtTop {
    @Setup(Level.Invocation)
    public void ready(BaselineBenchmark b) throws GitAPIException {
      if (!b.top.equals(b.at)) {
        b.restore(b.top);
      }
    }
  }

  /** Before each measured redo: stand on the snapshot before it. */
  @State(Scope.Thread)
  public static class BelowTop {
    @Setup(Level.Invocation)
    public void ready(BaselineBenchmark b) throws GitAPIException {
      if (!b.below.equals(b.at)) {
        b.restore(b.below);
      }
    }
  }

  @Benchmark
  public ObjectId create() throws IOException, GitAPIException {
    edits.writeAll();
    return snapshot("checkpoint");
  }

  @Benchmark
  public ObjectId undo(AtTop ready) throws GitAPIException {
    return restore(below);
  }

  @Benchmark
  public ObjectId redo(BelowTop ready) throws GitAPIException {
    return restore(top);
  }
}
