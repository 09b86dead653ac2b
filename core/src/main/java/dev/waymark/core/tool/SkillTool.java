package dev.waymark.core.tool;

import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.skill.Skill;
import dev.waymark.core.skill.SkillCatalog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code skill}: loads one skill of the catalogue, its instructions and the list of the files beside
 * them; with {@code file}, one of those files (a skill of the user's lies outside the project, where
 * {@code read_file} does not reach). Reads only, inside the skill's own folder: a link out of it is
 * refused. Nothing a skill holds is run by Waymark.
 */
public final class SkillTool extends AbstractTool {
  /** How many of a skill's files the result names. */
  static final int MAX_FILES = 200;

  private final SkillCatalog catalog;

  public SkillTool(SkillCatalog catalog, ToolSettings settings) {
    super("skill",
        "Load a skill (see the Skills section of the system prompt) before a task it fits: returns its instructions and "
            + "the files beside them. With file, returns one of those files instead.",
        new Args.Schema()
            .string("name", "The skill's name, as listed", true)
            .string("file", "A file of the skill, relative to its folder, as the skill's result lists them", false),
        ToolKind.READ, settings);
    this.catalog = catalog;
  }

  @Override
  String summary(Args args) throws ToolError {
    return args.string("name") + args.optionalString("file").map(f -> " " + f).orElse(""); // shown after the tool's name, skill
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String name = args.string("name");
    Skill skill = catalog.find(name).orElseThrow(() -> new ToolError(ErrorKind.NOT_FOUND, "No skill named \"" + name + "\". The skills are: "
        + (catalog.isEmpty() ? "none" : String.join(", ", catalog.skills().stream().map(Skill::name).toList())) + "."));
    var file = args.optionalString("file");
    if (file.isPresent()) {
      return ToolResult.ok(readFile(skill, file.get()));
    }
    StringBuilder text = new StringBuilder("Skill ").append(skill.name()).append(" (").append(skill.directory())
        .append(")\n\n").append(SkillCatalog.body(skill));
    List<String> files = files(skill.directory());
    if (!files.isEmpty()) {
      text.append("\n\nFiles beside it (read one with skill, name \"").append(skill.name()).append("\" and file):\n");
      files.stream().limit(MAX_FILES).forEach(f -> text.append("- ").append(f).append('\n'));
      if (files.size() > MAX_FILES) {
        text.append("... and ").append(files.size() - MAX_FILES).append(" more\n");
      }
    }
    return ToolResult.ok(text.toString().strip());
  }

  private String readFile(Skill skill, String relative) throws ToolError, IOException {
    Path folder = skill.directory().toRealPath();
    Path wanted = folder.resolve(relative).normalize();
    if (!wanted.startsWith(folder) || !Files.exists(wanted, LinkOption.NOFOLLOW_LINKS)) {
      throw new ToolError(ErrorKind.NOT_FOUND, "The skill " + skill.name() + " has no file " + relative + ".");
    }
    Path real = wanted.toRealPath();
    if (!real.startsWith(folder)) {
      throw new ToolError(ErrorKind.REFUSED, relative + " leads out of the skill's folder; it is not read.");
    }
    if (!Files.isRegularFile(real)) {
      throw new ToolError(ErrorKind.REFUSED, relative + " is not a file.");
    }
    long size = Files.size(real);
    if (size > settings.maxFileSize()) {
      throw new ToolError(ErrorKind.REFUSED, relative + " is " + size + " bytes, over the limit of " + settings.maxFileSize() + ".");
    }
    if (looksBinary(real)) {
      return relative + " is a binary file (" + size + " bytes); its content is not shown.";
    }
    String content = new String(Files.readAllBytes(real), StandardCharsets.UTF_8);
    return content.length() > settings.readMaxChars()
        ? content.substring(0, settings.readMaxChars()) + "\n[cut at " + settings.readMaxChars() + " characters]"
        : content;
  }

  private static List<String> files(Path folder) throws IOException {
    try (Stream<Path> walk = Files.walk(folder, 8)) {
      return walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(p))
          .map(p -> folder.relativize(p).toString().replace('\\', '/'))
          .filter(p -> !p.equals(SkillCatalog.FILE_NAME))
          .sorted().toList();
    }
  }
}
