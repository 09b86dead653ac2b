package dev.waymark.core.tool;

import dev.waymark.core.Counted;
import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code grep}: lines matching a Java regular expression, as {@code path:line:text}, over the
 * files {@code list_files} would list. Binary files, files over the size limit and links are
 * skipped; results are capped, and the output says when.
 */
final class GrepTool extends AbstractTool {
  static final int MAX_LINE_CHARS = 500;

  GrepTool(ToolSettings settings) {
    super("grep",
        "Search file contents with a Java regular expression. Returns matching lines as path:line:text. Honours "
            + ".gitignore and the same exclusions as list_files; binary files are skipped.",
        new Args.Schema()
            .string("pattern", "Java regular expression, e.g. \"class \\\\w+Tool\"", true)
            .string("path", "File or directory to search, relative to the project root (default: the root)", false)
            .string("glob", "Only search files matching this glob, e.g. \"*.java\"", false),
        ToolKind.READ, settings);
  }

  @Override
  String summary(Args args) throws ToolError {
    return "grep " + args.string("pattern") + args.optionalString("path").map(p -> " in " + p).orElse("");
  }

  @Override
  Optional<Sensitive> sensitive(Args args, Path projectRoot) throws ToolError {
    return secretsAt(args.optionalString("path").orElse(""), projectRoot);
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String regex = args.string("pattern");
    String path = args.optionalString("path").orElse("");
    Optional<String> globText = args.optionalString("glob");
    Pattern pattern;
    try {
      pattern = Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      return ToolResult.error(ErrorKind.REFUSED, "Not a valid Java regular expression: " + e.getMessage());
    }
    Glob glob = globText.isPresent() ? Glob.of(globText.get()) : null;
    ProjectPaths paths = ProjectPaths.of(context);
    ProjectPaths.Resolved target = paths.forRead(path);
    if (!Files.exists(target.file(), LinkOption.NOFOLLOW_LINKS)) {
      return ToolResult.error(ErrorKind.NOT_FOUND, "Not found: " + target.display());
    }
    Search search = new Search(pattern, glob, context);
    if (Files.isDirectory(target.file())) {
      String prefix = target.relative().isEmpty() ? "" : target.relative() + "/";
      boolean approvedSecrets = Tool.isSecretsFile(target.relative()); // grep of a secrets directory asked first
      paths.walk(target.relative(), new ProjectWalker.Visitor() {
        @Override
        public boolean entry(String entry, Path file, BasicFileAttributes attributes) throws IOException {
          if (!approvedSecrets && Tool.isSecretsFile(entry)) {
            search.secretsLeftOut++;
            return true;
          }
          return search.file(entry, entry.substring(prefix.length()), file, attributes);
        }
      });
    } else {
      search.file(target.relative(), target.file().getFileName().toString(), target.file(),
          Files.readAttributes(target.file(), BasicFileAttributes.class));
    }
    StringBuilder out = search.out;
    if (search.secretsLeftOut > 0) {
      out.append("[left out ").append(Counted.of(search.secretsLeftOut, ".env file")).append(": grep one by its path to search it; "
          + "that asks the user first]\n");
    }
    if (search.matches == 0) {
      out.append("No matches for ").append(regex).append(" in ").append(target.display()).append(".\n");
    } else if (search.truncated) {
      out.append("[truncated after ").append(search.matches).append(" matches; narrow the pattern, path or glob]\n");
    }
    if (search.skipped > 0) {
      out.append("[skipped ").append(search.skipped).append(" binary or over-").append(settings.maxFileSize())
          .append("-byte files]\n");
    }
    return ToolResult.ok(out.toString());
  }

  private final class Search {
    final Pattern pattern;
    final Glob glob;
    final ToolContext context;
    final StringBuilder out = new StringBuilder();
    int matches;
    int skipped;
    int secretsLeftOut;
    boolean truncated;

    Search(Pattern pattern, Glob glob, ToolContext context) {
      this.pattern = pattern;
      this.glob = glob;
      this.context = context;
    }

    /** Returns false to stop: the cap is reached or the call was cancelled. */
    boolean file(String relative, String below, Path file, BasicFileAttributes attributes) throws IOException {
      if (!attributes.isRegularFile() || glob != null && !glob.matches(below)) {
        return true;
      }
      if (attributes.size() > settings.maxFileSize() || looksBinary(file)) {
        skipped++;
        return true;
      }
      String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
      Matcher m = pattern.matcher("");
      int lineNumber = 0;
      int start = 0;
      while (start <= text.length()) {
        int end = text.indexOf('\n', start);
        if (end < 0) {
          end = text.length();
          if (start == end) {
            break;
          }
        }
        lineNumber++;
        String line = text.substring(start, end > start && text.charAt(end - 1) == '\r' ? end - 1 : end);
        if (m.reset(line).find()) {
          if (matches == settings.grepMaxMatches()) {
            truncated = true;
            return false;
          }
          matches++;
          out.append(relative).append(':').append(lineNumber).append(':')
              .append(line.length() > MAX_LINE_CHARS ? line.substring(0, MAX_LINE_CHARS) + " [cut]" : line)
              .append('\n');
        }
        start = end + 1;
      }
      return !context.cancellation().isCancelled();
    }
  }
}
