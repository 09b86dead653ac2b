package dev.waymark.core.checkpoint.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The store's two captures of shell commands, each standing alone, met at one place: the facade
 * (trees, turns, the store) makes one call here per point in a command's or tab's life instead of
 * one per capture, and neither capture learns of the other.
 */
public final class Captures implements AutoCloseable {
  private final LayerCapture layers;
  private final ShellChangeTracker compared;
  private final CommandJobs jobs;

  /** {@code jobs}: the one follower of what both captures' commands leave running. */
  public Captures(LayerCapture layers, ShellChangeTracker compared, CommandJobs jobs) {
    this.layers = layers;
    this.compared = compared;
    this.jobs = jobs;
  }

  /**
   * Records in {@code turn}, as it ends, what background processes of its tab's commands changed: in
   * their layers, and by comparison unless a command runs on the project right now.
   */
  public void settleAsTurnEnds(TabRecords turn) {
    layers.settle(turn);
    compared.settleBackgroundUnlessACommandRuns(turn);
  }

  /**
   * Before {@code tree} restores files: what background processes wrote so far belongs to the
   * checkpoint whose files are on disk, not to the restore; {@code restore} runs, and the comparison
   * capture then follows them from the restored files.
   */
  public <T> T aroundRestore(TabHistory tree, Supplier<T> restore) {
    return jobs.aroundRestore(tree, restore);
  }

  /** The tab is closing: what its commands left running stops, and what it wrote is recorded. */
  public void stopBackground(TabHistory tree) {
    jobs.stop(tree);
  }

  /** What a killed Waymark left of the tab's commands, recorded now; a line for the user each. */
  public List<String> recover(TabHistory tree) {
    List<String> notes = new ArrayList<>(layers.recover(tree)); // a layer left by a killed Waymark first
    notes.addAll(compared.recover(tree));
    return notes;
  }

  /** How many processes commands left running still run (what quitting would stop). */
  public int runningInBackground() {
    return jobs.running();
  }

  /** Waymark is closing: no scan ahead is waited for, background processes are stopped and recorded. */
  @Override
  public void close() {
    compared.stopScanAhead();
    jobs.close();
    compared.close();
  }
}
