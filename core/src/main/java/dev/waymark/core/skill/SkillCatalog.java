package dev.waymark.core.skill;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The skills a tab may load: the project's ({@code .waymark/skills/}, {@code .claude/skills/},
 * {@code .agents/skills/}, only in a trusted project) and the user's ({@code ~/.config/waymark/skills/},
 * {@code ~/.claude/skills/}), each a folder with a {@code SKILL.md}. Where two folders give one name,
 * the first directory's wins and the other is listed as shadowed. A folder that cannot be used (no
 * front matter, no description, a bad name, unreadable) is listed with why, never loaded.
 */
public final class SkillCatalog {
  public static final String FILE_NAME = Skill.FILE_NAME;

  /** A skill's file may be at most this long: instructions, not a document (Claude Code advises under 500 lines). */
  public static final int MAX_BYTES = 256 * 1024;

  /** Claude Code's rule for a skill's name: lowercase letters, digits and hyphens, at most 64. */
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  public static final SkillCatalog NONE = new SkillCatalog(List.of(), List.of());

  /** A folder under a skills directory that is not loaded, and why. */
  public record Refused(Path directory, String why) {}

  private final List<Skill> skills;
  private final List<Refused> refused;

  private SkillCatalog(List<Skill> skills, List<Refused> refused) {
    this.skills = List.copyOf(skills);
    this.refused = List.copyOf(refused);
  }

  /**
   * The skills under {@code project} ({@code empty} when it is not trusted), then the user's: under
   * {@code userConfigDirectory} (Waymark's, {@code ~/.config/waymark}) and {@code home}'s {@code .claude}.
   */
  public static SkillCatalog of(Optional<Path> project, Path userConfigDirectory, Path home) {
    Map<Path, String> directories = new LinkedHashMap<>();
    project.ifPresent(root -> {
      directories.put(root.resolve(".waymark").resolve("skills"), "project");
      directories.put(root.resolve(".claude").resolve("skills"), "project");
      directories.put(root.resolve(".agents").resolve("skills"), "project");
    });
    directories.put(userConfigDirectory.resolve("skills"), "user");
    directories.put(home.resolve(".claude").resolve("skills"), "user");
    return in(directories);
  }

  /**
   * The user's skills, with those of {@code project}, which is not trusted, listed as not loaded and why: {@code /skills}
   * says why they are missing rather than leaving them out unsaid.
   */
  public static SkillCatalog untrusted(Path project, Path userConfigDirectory, Path home) {
    SkillCatalog users = of(Optional.empty(), userConfigDirectory, home);
    List<Refused> refused = new ArrayList<>();
    for (String dir : List.of(".waymark", ".claude", ".agents")) {
      folders(project.resolve(dir).resolve("skills")).forEach(folder -> refused.add(new Refused(folder,
          "the project is not trusted: its skills load once you trust it (the question when waymark starts)")));
    }
    refused.addAll(users.refused);
    return new SkillCatalog(users.skills, refused);
  }

  /** The skills of {@code directories} (directory → origin), in that order of precedence. */
  public static SkillCatalog in(Map<Path, String> directories) {
    Map<String, Skill> byName = new LinkedHashMap<>();
    List<Refused> refused = new ArrayList<>();
    for (var entry : directories.entrySet()) {
      for (Path folder : folders(entry.getKey())) {
        try {
          Skill skill = read(folder, entry.getValue());
          Skill first = byName.putIfAbsent(skill.name(), skill);
          if (first != null) {
            refused.add(new Refused(folder, "shadowed by " + first.directory() + ", which has the same name"));
          }
        } catch (IOException | IllegalArgumentException e) {
          refused.add(new Refused(folder, e.getMessage()));
        }
      }
    }
    return new SkillCatalog(new ArrayList<>(byName.values()), refused);
  }

  public List<Skill> skills() {
    return skills;
  }

  public List<Refused> refused() {
    return refused;
  }

  public boolean isEmpty() {
    return skills.isEmpty();
  }

  public Optional<Skill> find(String name) {
    return skills.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** For {@code /skills}: a line per skill (name, where from, description), then the folders not loaded and why. */
  public List<String> describe() {
    List<String> lines = new ArrayList<>();
    if (skills.isEmpty()) {
      lines.add("No Agent Skills. A skill is a folder with a SKILL.md (front matter: name, description) in .waymark/skills/, "
          + ".claude/skills/ or .agents/skills/ of a trusted project, or in ~/.config/waymark/skills/ or ~/.claude/skills/.");
    } else {
      lines.add("Agent Skills the model may load (the skill tool):");
      for (Skill skill : skills) {
        lines.add("  " + skill.name() + " (" + skill.origin() + ", " + skill.directory() + "): " + skill.description());
      }
    }
    for (Refused folder : refused) {
      lines.add("  not loaded: " + folder.directory() + ": " + folder.why());
    }
    return lines;
  }

  /** The system prompt's section: each skill's name and description, and how to load one; empty with no skill. */
  public String promptSection() {
    if (skills.isEmpty()) {
      return "";
    }
    StringBuilder text = new StringBuilder("# Skills\n\nSkills are instructions (and files) for particular tasks. When a "
        + "task matches a skill's description, load it with the `skill` tool (argument `name`) before you start, then "
        + "follow it.\n\n");
    for (Skill skill : skills) {
      text.append("- ").append(skill.name()).append(": ").append(skill.description().replace('\n', ' ')).append('\n');
    }
    return text.toString().strip();
  }

  /** The instructions of {@code skill}: its file without the front matter. */
  public static String body(Skill skill) throws IOException {
    return split(readCapped(skill.file())).body();
  }

  private static List<Path> folders(Path directory) {
    List<Path> folders = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return folders;
    }
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
      for (Path entry : stream) {
        // a linked skill folder is followed, as Claude Code does (people link their skills in); its file must be regular
        if (Files.isDirectory(entry) && Files.isRegularFile(entry.resolve(FILE_NAME))) {
          folders.add(entry);
        }
      }
    } catch (IOException e) {
      return folders; // an unreadable skills directory holds no skill
    }
    folders.sort(Comparator.comparing(p -> p.getFileName().toString()));
    return folders;
  }

  private static Skill read(Path folder, String origin) throws IOException {
    Path file = folder.resolve(FILE_NAME);
    Front front = split(readCapped(file));
    if (front.matter().isEmpty()) {
      throw new IllegalArgumentException(FILE_NAME + " has no front matter (--- name: … description: … ---)");
    }
    JsonNode meta;
    try {
      meta = YAML.readTree(front.matter());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(FILE_NAME + "'s front matter is not YAML: " + e.getOriginalMessage());
    }
    if (meta == null || !meta.isObject()) {
      throw new IllegalArgumentException(FILE_NAME + "'s front matter is not a mapping");
    }
    String name = meta.path("name").asText(folder.getFileName().toString()).strip();
    String description = meta.path("description").asText("").strip();
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("the name \"" + name + "\" is not lowercase letters, digits and hyphens (at most 64)");
    }
    if (description.isEmpty()) {
      throw new IllegalArgumentException(FILE_NAME + " has no description, which says when to use it");
    }
    return new Skill(name, description, folder.toAbsolutePath().normalize(), origin);
  }

  private static String readCapped(Path file) throws IOException {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(file)) {
      throw new IOException(FILE_NAME + " is not a file");
    }
    long size = Files.size(file);
    if (size > MAX_BYTES) {
      throw new IllegalArgumentException(FILE_NAME + " is " + size + " bytes, over " + MAX_BYTES);
    }
    return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
  }

  private record Front(String matter, String body) {}

  /** The front matter between a first line {@code ---} and the next, and what follows; no matter when the file has none. */
  private static Front split(String text) {
    String normal = text.startsWith("\uFEFF") ? text.substring(1) : text;
    normal = normal.replace("\r\n", "\n");
    if (!normal.startsWith("---\n")) {
      return new Front("", normal.strip());
    }
    int end = normal.indexOf("\n---", 3);
    if (end < 0) {
      return new Front("", normal.strip());
    }
    int after = normal.indexOf('\n', end + 4);
    return new Front(normal.substring(4, end + 1), after < 0 ? "" : normal.substring(after + 1).strip());
  }
}
