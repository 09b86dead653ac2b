package dev.waymark.core.bisect;

/** What one run of the command says of a checkpoint, read from its exit status as {@code git bisect run} reads it. */
public enum Verdict {
  GOOD,
  BAD,
  /** 125: the checkpoint cannot be tested (it does not build, say); a neighbour is tried instead. */
  SKIP,
  /** 128 and above (killed by a signal), or the command timed out: the bisect stops. */
  ABORT;

  public static Verdict of(int exitStatus) {
    if (exitStatus == 0) {
      return GOOD;
    }
    if (exitStatus == 125) {
      return SKIP;
    }
    return exitStatus > 0 && exitStatus < 128 ? BAD : ABORT;
  }
}
