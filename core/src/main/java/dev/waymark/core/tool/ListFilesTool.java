package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * {@code list_files}: the project's files under a directory, optionally filtered by a glob,
 * leaving out what {@code .gitignore} files and the built-in exclusions leave out (the same walk
 * the shell change tracker uses). Capped, and says when.
 */
final class ListFilesTool extends AbstractTool {
  ListFilesTool(ToolSettings settings) {
    super("list_files",
        "List files in the project, recursively, as paths relative to the project root. Honours .gitignore and "
            + "skips " + String.join(", ", sorted(ProjectWalker.EXCLUDED_DIRECTORIES)) + ", except files git tracks.",
        new Args.Schema()
            .string("path", "Directory to list, relative to the project root (default: the root)", false)
            .string("pattern", "Glob to filter by, e.g. \"*.java\" (matches file names at any depth) or "
                + "\"src/**/*.ts\" (matches paths below the listed directory)", false),
        ToolKind.READ, settings);
  }

  static List<String> sorted(Collection<String> names) {
    List<String> list = new ArrayList<>(names);
    Collections.sort(list);
    return list;
  }

  @Override
  String summary(Args args) throws ToolError {
    return "list " + args.optionalString("path").orElse(".") + args.optionalString("pattern").map(p -> " " + p).orElse("");
  }

  @Override
  Optional<Sensitive> sensitive(Args args, Path projectRoot) throws ToolError {
    return secretsAt(args.optionalString("path").orElse(""), projectRoot);
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String path = args.optionalString("path").orElse("");
    Optional<String> pattern = args.optionalString("pattern");
    Glob glob = pattern.isPresent() ? Glob.of(pattern.get()) : null;
    ProjectPaths paths = ProjectPaths.of(context);
    ProjectPaths.Resolved dir = paths.forRead(path);
    if (!Files.exists(dir.file(), LinkOption.NOFOLLOW_LINKS)) {
      return ToolResult.error(ErrorKind.NOT_FOUND, "Directory not found: " + dir.display());
    }
    if (!Files.isDirectory(dir.file())) {
      return ToolResult.ok(dir.relative());
    }
    int max = settings.listMaxFiles();
    List<String> found = new ArrayList<>();
    int[] total = {0};
    String prefix = dir.relative().isEmpty() ? "" : dir.relative() + "/";
    paths.walk(dir.relative(), new ProjectWalker.Visitor() {
      @Override
      public boolean entry(String entry, Path file, BasicFileAttributes attributes) {
        if (glob == null || glob.matches(entry.substring(prefix.length()))) {
          total[0]++;
          if (found.size() < max) {
            found.add(entry);
          }
        }
        return !context.cancellation().isCancelled();
      }
    });
    if (found.isEmpty()) {
      return ToolResult.ok("No files found in " + dir.display() + pattern.map(p -> " matching " + p).orElse("") + ".");
    }
    StringBuilder out = new StringBuilder();
    for (String f : found) {
      out.append(f).append('\n');
    }
    if (total[0] > found.size()) {
      out.append("[truncated: showing the first ").append(found.size()).append(" of ").append(total[0])
          .append(" files; narrow the path or pattern]\n");
    }
    return ToolResult.ok(out.toString());
  }
}
