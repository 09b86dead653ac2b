package dev.waymark.app;

import dev.waymark.core.WaymarkHome;
import java.util.Map;

/**
 * What a sub-command reads of the process that runs it, through picocli's {@code @ParentCommand}:
 * Waymark's home, the environment settings and keys are read from, and standard input. {@link Main}
 * is the one implementation (tests give it their own); the sub-commands name this, not {@code Main}.
 */
interface Invocation {
  WaymarkHome home();

  /** The environment settings and keys are read from (the process's; tests pass their own). */
  Map<String, String> env();

  Stdin stdin();
}
