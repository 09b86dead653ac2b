package dev.waymark.core.agent;

/**
 * The words of a /compact: what the model is asked, and what heads the summary that replaces the
 * conversation (a saved session strips it again when it replays the summary).
 */
public final class Compaction {
  /** What the model is asked for a /compact. */
  static final String REQUEST = "Summarise our conversation so far for yourself, to continue from it with "
      + "the earlier messages gone: the user's goals and instructions, what was done (files read, created and "
      + "changed, commands run, with their outcomes), decisions made, and what is left to do. Be specific about "
      + "paths, names and errors. Answer with the summary only.";

  /** Heads the summary a /compact keeps. */
  public static final String HEADING = "The earlier conversation was compacted (/compact). Its summary:\n\n";

  private Compaction() {}
}
