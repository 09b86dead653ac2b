package dev.waymark.core.checkpoint.shell;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.lib.Config;

/**
 * The git settings that make git run a program (or read settings from another file, which could),
 * so that a command's layer cannot leave them for the user's next {@code git} to run outside the
 * sandbox. An allow list, read with JGit's own parser: a setting is the command's to make only
 * when it is one git is known to read as plain data (a name, a URL, a number, a switch); every
 * other setting, a program-running one git adds next year included, is refused, whatever its
 * spelling or quoting.
 */
final class GitProgramSettings {
  /**
   * Settings of a section without a subsection ({@code section.name}) or with any ({@code
   * section.*.name}), lower case, that git reads as data: what {@code git init}, {@code clone},
   * {@code remote}, {@code branch}, {@code submodule}, {@code worktree}, {@code sparse-checkout} and
   * {@code config} of everyday values write.
   */
  private static final Set<String> DATA = Set.of(
      "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates", "core.ignorecase",
      "core.precomposeunicode", "core.symlinks", "core.autocrlf", "core.eol", "core.safecrlf", "core.worktree",
      "core.sparsecheckout", "core.sparsecheckoutcone", "core.quotepath", "core.abbrev", "core.compression",
      "core.loosecompression", "core.bigfilethreshold", "core.checkstat", "core.trustctime", "core.untrackedcache",
      "core.splitindex", "core.commentchar", "core.commentstring", "core.preloadindex", "core.multipackindex",
      "core.commitgraph", "core.protecthfs", "core.protectntfs", "core.warnambiguousrefs", "core.whitespace",
      "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.push", "remote.*.mirror", "remote.*.tagopt",
      "remote.*.prune", "remote.*.prunetags", "remote.*.promisor", "remote.*.partialclonefilter",
      "remote.*.skipdefaultupdate", "remote.*.skipfetchall", "remote.*.followremotehead",
      "branch.*.remote", "branch.*.pushremote", "branch.*.merge", "branch.*.rebase", "branch.*.description",
      "branch.autosetupmerge", "branch.autosetuprebase", "branch.sort",
      "submodule.*.url", "submodule.*.path", "submodule.*.active", "submodule.*.branch", "submodule.*.shallow",
      "submodule.*.fetchrecursesubmodules", "submodule.*.ignore", "submodule.recurse",
      "submodule.active", "submodule.fetchjobs",
      "init.defaultbranch", "pull.rebase", "pull.ff", "push.default", "push.autosetupremote", "push.followtags",
      "fetch.prune", "fetch.prunetags", "fetch.recursesubmodules", "fetch.writecommitgraph", "fetch.parallel",
      "merge.ff", "merge.conflictstyle", "merge.log", "merge.renames", "rebase.autosquash", "rebase.autostash",
      "rebase.updaterefs", "diff.renames", "diff.algorithm", "diff.mnemonicprefix", "diff.noprefix",
      "diff.colormoved", "diff.submodule", "diff.relative", "commit.cleanup", "commit.verbose", "commit.status",
      "rerere.enabled", "rerere.autoupdate", "index.version", "index.sparse", "index.skiphash",
      "feature.manyfiles", "feature.experimental", "worktree.guessremote", "clone.defaultremotename",
      "protocol.version", "tag.sort", "help.autocorrect");
  /** Sections whose every setting git reads as data (names, colours, limits, hints). */
  private static final Set<String> DATA_SECTIONS = Set.of("user", "author", "committer", "color", "advice", "i18n",
      "column", "status", "extensions", "gc", "pack", "maintenance", "log", "format", "blame", "grep", "am");
  /** An attribute that hands a file to a filter or a diff or merge driver (set, unset or negated alike). */
  private static final Pattern ATTRIBUTE_DRIVERS = Pattern.compile("(^|\\s)-?!?(filter|diff|merge)(=|\\s|$)");

  private GitProgramSettings() {}

  /**
   * The first setting in {@code text} (a git config file) that runs a program, as
   * {@code section.subsection.name}; empty when none does. A file git could not read either is
   * refused as a whole ("unreadable"): what JGit cannot parse, git may read differently.
   */
  static Optional<String> runsAProgram(String text) {
    return runsAProgram(text, "");
  }

  /**
   * As above, but a setting {@code before} (the file as it was; empty: none) held with the same
   * values is not the command's: a nested repository's own pager stays the user's business when a
   * command changes another setting of it.
   */
  static Optional<String> runsAProgram(String text, String before) {
    Config config = new Config();
    Config was = new Config();
    try {
      config.fromText(text);
    } catch (ConfigInvalidException e) {
      return Optional.of("settings git may read in a way Waymark cannot check");
    }
    try {
      was.fromText(before);
    } catch (ConfigInvalidException e) {
      was = new Config(); // nothing of it is taken for the user's
    }
    for (String section : config.getSections()) {
      Optional<String> found = inSection(config, was, section, null);
      if (found.isPresent()) {
        return found;
      }
      for (String subsection : config.getSubsections(section)) {
        found = inSection(config, was, section, subsection);
        if (found.isPresent()) {
          return found;
        }
      }
    }
    return Optional.empty();
  }

  private static Optional<String> inSection(Config config, Config was, String section, String subsection) {
    String s = section.toLowerCase(Locale.ROOT);
    for (String name : config.getNames(section, subsection)) {
      String n = name.toLowerCase(Locale.ROOT);
      String[] values = config.getStringList(section, subsection, name);
      if (dangerous(s, subsection == null ? null : "*", n, values) && !Arrays.equals(values, was.getStringList(section, subsection, name))) {
        return Optional.of(section + (subsection == null ? "" : "." + subsection) + "." + name);
      }
    }
    return Optional.empty();
  }

  private static boolean dangerous(String section, String subsection, String name, String[] values) {
    String key = section + "." + (subsection == null ? "" : "*.") + name;
    if (section.equals("alias") && subsection == null || BY_VALUE.contains(key)) {
      // a program only by its value: an alias or update mode starting with "!", an fsmonitor other
      // than git's own daemon, a protocol (ext::) let in
      return Arrays.stream(values).anyMatch(v -> !dataValue(section, key, v == null ? "" : v.strip()));
    }
    return !DATA_SECTIONS.contains(section) && !DATA.contains(key);
  }

  private static final Set<String> BY_VALUE = Set.of("core.fsmonitor", "submodule.*.update", "protocol.allow",
      "protocol.*.allow");

  private static boolean dataValue(String section, String key, String value) {
    if (section.equals("alias") || key.equals("submodule.*.update")) {
      return !value.startsWith("!");
    }
    return key.equals("core.fsmonitor") ? isBoolean(value) : value.equalsIgnoreCase("never");
  }

  private static boolean isBoolean(String value) {
    return Set.of("true", "false", "yes", "no", "on", "off", "1", "0", "").contains(value.strip().toLowerCase(Locale.ROOT));
  }

  /** Whether an attributes file selects a filter or a diff or merge driver, which the settings name a program for. */
  static boolean selectsADriver(String attributes) {
    return attributes.lines().map(String::strip).filter(l -> !l.startsWith("#"))
        .anyMatch(l -> ATTRIBUTE_DRIVERS.matcher(l).find());
  }

  /** Whether a file in a hooks directory is one git runs (git never runs the samples it ships). */
  static boolean isHook(String name) {
    return !name.endsWith(".sample");
  }
}
