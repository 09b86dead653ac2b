package dev.waymark.core.bisect;

import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.layer.LayerSupport;
import dev.waymark.core.layer.ScratchLayer;
import dev.waymark.core.sandbox.ShellSandbox;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Finds the first checkpoint on a path of a tab's tree where a command fails, as {@code git bisect
 * run} does over commits: the bad end is tested first (a command that passes there has nothing to
 * find), then the good end, then the middle of what is left until one good checkpoint is followed
 * by a bad one. Each test runs on a throw-away layer ({@link CandidateRun}); a skipped checkpoint
 * (125) is stepped around; a run that aborts stops the bisect.
 */
public final class Bisection {
  /** Reads the bytes of a blob a checkpoint names (the store's, thread-safe). */
  public interface Blobs {
    byte[] read(ObjectId blob) throws IOException;
  }

  /** Told each checkpoint as it is about to be tested, and once it was. */
  public interface Progress {
    Progress NONE = new Progress() {};

    default void testing(int checkpoint) {}

    default void tested(BisectStep step) {}
  }

  /**
   * Where and how commands run.
   *
   * @param project the project (a real path): every layer's lower
   * @param scratchRoot where the throw-away layers are made, out of every sandbox's reach
   * @param environment what the command gets (the provider keys already left out)
   * @param timeout how long one run may take; longer aborts the bisect
   */
  public record Setup(Path project, Path scratchRoot, ShellSandbox sandbox, Blobs blobs, Map<String, String> environment,
      Duration timeout) {}

  private final Setup setup;
  private final LayerSupport layers;

  private Bisection(Setup setup, LayerSupport layers) {
    this.setup = setup;
    this.layers = layers;
  }

  /** A bisect in {@code setup}, or why none can run here (no sandbox, no layers). */
  public static Bisection open(Setup setup) throws Unavailable {
    ShellSandbox sandbox = setup.sandbox();
    if (!sandbox.confines()) {
      throw new Unavailable("bisect runs the command in the sandbox on a throw-away copy-on-write layer, and "
          + (sandbox.unavailable().isEmpty() ? "the sandbox is off by the settings (sandbox.mode)"
              : "there is no sandbox here: " + sandbox.unavailable()));
    }
    Optional<String> unsuitable = LayerSupport.unsuitable(setup.project());
    if (unsuitable.isPresent()) {
      throw new Unavailable("bisect needs a copy-on-write layer of the project, and " + unsuitable.get());
    }
    ScratchLayer.sweep(setup.scratchRoot());
    LayerSupport support = LayerSupport.detectOnce(setup.scratchRoot(), sandbox.bwrap().orElseThrow(),
        setup.environment().getOrDefault("PATH", System.getenv("PATH")));
    if (!support.available()) {
      throw new Unavailable("bisect needs a copy-on-write layer of the project, and none can be mounted here: "
          + support.unavailable());
    }
    return new Bisection(setup, support);
  }

  /** Opens a bisect where the sandbox, the store and the environment are known (the interface's {@code /bisect}). */
  public interface Opener {
    Opener NONE = () -> {
      throw new Unavailable("bisect was not set up in this run");
    };

    Bisection open() throws Unavailable;
  }

  /** Why a bisect cannot run here; its message is the user's. */
  public static final class Unavailable extends Exception {
    public Unavailable(String message) {
      super(message);
    }
  }

  /** Bisects {@code tree} from {@code good} (default: the start of the live path) to {@code bad} (default: live). */
  public BisectResult run(TreeSnapshot tree, OptionalInt good, OptionalInt bad, String command,
      Progress progress) {
    BisectPath path;
    try {
      path = BisectPath.of(tree, good, bad);
    } catch (IllegalArgumentException e) {
      return BisectResult.refused(e.getMessage());
    }
    return new Search(path.numbers(), new CandidateRun(setup, layers, new CandidateFiles(tree), command), progress).run();
  }

  /** Makes the layer of checkpoint {@code number} of {@code tree} and hands it over (the bench times this). */
  public ScratchLayer prepare(TreeSnapshot tree, int number) throws IOException {
    return new CandidateRun(setup, layers, new CandidateFiles(tree), "true").prepare(number);
  }

  /** One bisect's state: what is known of each index of the path. */
  private static final class Search {
    private final List<Integer> path;
    private final CandidateRun runs;
    private final Progress progress;
    private final List<BisectStep> steps = new ArrayList<>();
    private final Map<Integer, Verdict> known = new HashMap<>();

    Search(List<Integer> path, CandidateRun runs, Progress progress) {
      this.path = path;
      this.runs = runs;
      this.progress = progress;
    }

    BisectResult run() {
      int last = path.size() - 1;
      Verdict atBad = test(last);
      if (atBad == Verdict.GOOD) {
        return end(BisectResult.Outcome.NEVER_FAILS, OptionalInt.empty(), List.of(), "The command passes at #"
            + path.get(last) + " (the bad end): there is no failure to look for.");
      }
      if (atBad != Verdict.BAD) {
        return aborted(last, atBad);
      }
      Verdict atGood = test(0);
      if (atGood == Verdict.BAD && path.get(0) == 0) {
        return end(BisectResult.Outcome.FAILS_AT_GOOD, OptionalInt.empty(), List.of(), "The command fails at #0, where the "
            + "tab began, already: it fails without any of the tab's changes, so no checkpoint made it fail.");
      }
      if (atGood == Verdict.BAD) {
        return end(BisectResult.Outcome.FAILS_AT_GOOD, OptionalInt.empty(), List.of(), "The command fails at #"
            + path.get(0) + " (the good end) already: no checkpoint from there to #" + path.get(last)
            + " made it fail. Give an earlier --good.");
      }
      if (atGood != Verdict.GOOD) {
        return aborted(0, atGood);
      }
      int lo = 0;
      int hi = last;
      while (true) {
        OptionalInt next = nextUntested(lo, hi);
        if (next.isEmpty()) {
          break;
        }
        int at = next.getAsInt();
        Verdict verdict = test(at);
        switch (verdict) {
          case GOOD -> lo = at;
          case BAD -> hi = at;
          case SKIP -> { }
          default -> {
            return aborted(at, verdict);
          }
        }
      }
      int firstBad = path.get(hi);
      List<Integer> open = new ArrayList<>();
      for (int i = lo + 1; i < hi; i++) {
        open.add(path.get(i)); // all skipped
      }
      if (!open.isEmpty()) {
        open.add(firstBad);
        return end(BisectResult.Outcome.AMBIGUOUS, OptionalInt.empty(), open, "The first bad checkpoint is one of "
            + BisectPath.describe(open) + ": the command could not test " + (open.size() == 2 ? "#" + open.get(0)
                : "the others") + " (exit 125).");
      }
      return end(BisectResult.Outcome.FOUND, OptionalInt.of(firstBad), List.of(firstBad), "#" + firstBad
          + " is the first bad checkpoint: the command passes at #" + path.get(lo) + " and fails at #" + firstBad + ".");
    }

    /** The untested index nearest the middle of {@code (lo, hi)}, skipped ones stepped around; empty when none is left. */
    private OptionalInt nextUntested(int lo, int hi) {
      int middle = (lo + hi) / 2;
      for (int distance = 0; distance < hi - lo; distance++) {
        for (int at : new int[] {middle - distance, middle + distance + 1}) {
          if (at > lo && at < hi && !known.containsKey(at)) {
            return OptionalInt.of(at);
          }
        }
      }
      return OptionalInt.empty();
    }

    private Verdict test(int index) {
      progress.testing(path.get(index));
      BisectStep step = runs.test(path.get(index));
      steps.add(step);
      known.put(index, step.verdict());
      progress.tested(step);
      return step.verdict();
    }

    private BisectResult aborted(int index, Verdict verdict) {
      BisectStep step = steps.get(steps.size() - 1);
      String why = step.exitStatus() == CandidateRun.TIMED_OUT ? "timed out"
          : step.exitStatus() == CandidateRun.NOT_RUN ? "could not run: " + step.outputTail().strip()
          : verdict == Verdict.SKIP ? "could not test it (exit 125), and an end of the path must be tested"
          : "ended with exit status " + step.exitStatus() + " (128 or more stops a bisect, as in git bisect run)";
      return end(BisectResult.Outcome.ABORTED, OptionalInt.empty(), List.of(), "Stopped at #" + path.get(index)
          + ": the command " + why + ".");
    }

    private BisectResult end(BisectResult.Outcome outcome, OptionalInt firstBad, List<Integer> candidates,
        String message) {
      return new BisectResult(outcome, path, firstBad, candidates, steps, message);
    }
  }
}
