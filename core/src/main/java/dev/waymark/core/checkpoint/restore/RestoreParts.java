package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ProjectLock;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What a restore of one tab's files works with, handed down by the facade: the store's repository
 * and lock, the project as restores see it, the journal that lets a crash be rolled back, and two
 * things that stay the facade's: committing what a forced restore overwrote (the writer owns
 * tags) and noting what was written (so that a shell command of another tab does not take it for
 * its own).
 *
 * @param beforeWrite a test hook, called before each file is written
 */
public record RestoreParts(String tabId, ShadowRepository repo, WorkTree workTree, ProjectLock lock, Path journalFile,
    Rescue rescue, Consumer<List<FileChange>> written, Consumer<String> beforeWrite) {

  /** Keeps what a forced restore is about to overwrite. */
  public interface Rescue {
    /**
     * Commits {@code rescued} (path → the version found on disk, blobs stored; absent when there was
     * none) under a new {@code rescued} tag, and returns the tag's name.
     */
    String commit(Map<String, FileVersion> rescued, int liveNumber, int restoring);
  }
}
