package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;

/**
 * What a restore does about one planned path given what is on disk now: keep it, write the
 * target, carry a later edit by someone else over by a merge, or stop on a clash. Decided without
 * touching anything; {@link FileRestore} reads the disk, asks, and writes.
 *
 * @param action what to do
 * @param next for {@link Action#WRITE}, the version to write
 */
public record RestoreDecision(Action action, FileVersion next) {
  /** What to do about one path. */
  public enum Action {
    /** The disk holds the target already. */
    KEEP,
    /** The disk holds the tab's own version: write {@link RestoreDecision#next()}. */
    WRITE,
    /** Someone else changed the text since: a three-way merge may carry that change over. */
    MERGE,
    /** Someone else changed it in a way no merge can carry (binary, link, deleted or created on one side). */
    CONFLICT,
    /** A directory or special file stands where the path is: it depends on what else the restore removes. */
    BLOCKED
  }

  static RestoreDecision of(Action action) {
    return new RestoreDecision(action, null);
  }

  /**
   * What to do about one planned path given what is on disk: the target there already, keep it;
   * the tab's own version (maybe with a mode someone changed since, which stays when the kind
   * does), write the target; text changed by someone else on all three sides, merge; a directory
   * or special file, blocked; anything else is a clash.
   */
  public static RestoreDecision decide(Planned planned, WorkTree.DiskFile disk) {
    FileVersion base = planned.base();
    FileVersion target = planned.target();
    if (disk.matches(target)) {
      return of(Action.KEEP);
    }
    if (disk.sameContent(base)) {
      FileVersion next = keepChangedMode(base, disk, target);
      return disk.matches(next) ? of(Action.KEEP) : new RestoreDecision(Action.WRITE, next);
    }
    if (disk.blocked()) {
      return of(Action.BLOCKED);
    }
    return of(mergeable(base, disk, target) ? Action.MERGE : Action.CONFLICT);
  }

  /** {@code target}, with the mode found on disk when it differs from the tab's and the kind stays. */
  static FileVersion keepChangedMode(FileVersion base, WorkTree.DiskFile disk, FileVersion target) {
    boolean changed = base.hasMode() && disk.mode() != FileVersion.NO_MODE && disk.mode() != base.mode();
    return changed && target.exists() && target.kind() == base.kind()
        ? new FileVersion(target.kind(), target.blob(), disk.mode()) : target;
  }

  private static boolean mergeable(FileVersion base, WorkTree.DiskFile disk, FileVersion target) {
    return isText(base.kind()) && isText(disk.kind()) && isText(target.kind())
        && disk.size() <= ShadowRepository.MERGEABLE_LIMIT;
  }

  public static boolean isText(FileKind kind) {
    return kind == FileKind.REGULAR || kind == FileKind.EXECUTABLE;
  }
}
