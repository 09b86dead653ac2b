package dev.waymark.core.checkpoint.project;

/** Why an entry was left out: each names the rule, so that a message can say which one. */
public enum Exclusion {
  /** One of {@link ProjectWalker#EXCLUDED_DIRECTORIES}, or a {@code .git} file. */
  BUILT_IN("excluded by Waymark (build output, dependencies, caches)"),
  /** Matched by a {@code .gitignore} file. */
  IGNORED("ignored by .gitignore"),
  /** Matched by the repository's {@code info/exclude}. */
  GIT_INFO_EXCLUDE("ignored by .git/info/exclude"),
  /** Matched by git's {@code core.excludesFile} (default {@code ~/.config/git/ignore}). */
  EXCLUDES_FILE("ignored by git's core.excludesFile"),
  /** Matched by the {@code exclusions} setting. */
  SETTINGS("left out by the \"exclusions\" setting"),
  /**
   * A name that is not UTF-8: Java reads it with a stand-in character, and that name leads to no
   * file, so nothing can read, record or restore it.
   */
  NOT_UTF8("not UTF-8");

  private final String described;

  Exclusion(String described) {
    this.described = described;
  }

  /** The rule, as a message to the user names it ("ignored by .gitignore"). */
  public String described() {
    return described;
  }
}
