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
 * sandbox. A deny list, read with JGit's own parser: a setting git reads as a program, whatever
 * its spelling or quoting, is found as git would find it.
 */
final class GitProgramSettings {
  /** Names that hold a program (or a command line) in whatever section they are set. */
  private static final Set<String> PROGRAMS = Set.of("pager", "editor", "sshcommand", "hookspath", "askpass", "gitproxy",
      "alternaterefscommand", "external", "command", "textconv", "driver", "clean", "smudge", "process", "program",
      "helper", "uploadpack", "receivepack", "tunnel", "browser", "cmd", "tocmd", "cccmd", "difffilter",
      "packobjectshook", "smtpserver");
  /** Sections whose every setting names a program, or a file of more settings. */
  private static final Set<String> WHOLE = Set.of("pager", "include", "includeif");
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
      if (dangerous(s, n, values) && !Arrays.equals(values, was.getStringList(section, subsection, name))) {
        return Optional.of(section + (subsection == null ? "" : "." + subsection) + "." + name);
      }
    }
    return Optional.empty();
  }

  private static boolean dangerous(String section, String name, String[] values) {
    if (WHOLE.contains(section)) {
      return true;
    }
    switch (section) {
      case "alias":
      case "submodule":
        // a shell command only when it starts with "!" (an alias of a git command, a submodule's update mode)
        return Arrays.stream(values).anyMatch(v -> v != null && v.strip().startsWith("!"));
      case "protocol":
        // lets "ext::" URLs run a program
        return name.equals("allow") && Arrays.stream(values).anyMatch(v -> !"never".equalsIgnoreCase(v));
      case "core":
        if (name.equals("fsmonitor")) {
          // true is git's own daemon; anything else but false is a program
          return Arrays.stream(values).anyMatch(v -> v != null && !isBoolean(v));
        }
        return PROGRAMS.contains(name);
      default:
        return PROGRAMS.contains(name);
    }
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
