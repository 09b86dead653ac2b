package dev.waymark.core.skill;

import java.nio.file.Path;

/**
 * One skill: its name and what it is for (from its {@code SKILL.md}'s front matter), its folder, and
 * where it was found ({@code project} or {@code user}), for {@code /skills}.
 */
public record Skill(String name, String description, Path directory, String origin) {
  /** The name of the file that defines a skill, in its folder. */
  public static final String FILE_NAME = "SKILL.md";

  /** The file that defines it. */
  public Path file() {
    return directory.resolve(FILE_NAME);
  }
}
