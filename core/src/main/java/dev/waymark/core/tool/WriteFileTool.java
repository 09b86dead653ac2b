package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.UnifiedDiff;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/** {@code write_file}: creates or overwrites a file (parents too), recording the change so undo restores it. */
final class WriteFileTool extends AbstractTool {
  WriteFileTool(ToolSettings settings) {
    super("write_file",
        "Create a file, or overwrite it entirely, with the given content. Parent directories are created. Prefer "
            + "edit_file to change part of an existing file.",
        new Args.Schema()
            .string("path", "File path, relative to the project root", true)
            .string("content", "The complete new content of the file", true),
        ToolKind.EDIT, settings);
  }

  @Override
  String summary(Args args) throws ToolError {
    return "write " + args.string("path");
  }

  @Override
  Optional<Sensitive> sensitive(Args args, Path projectRoot) throws ToolError {
    return waymarkFilesAt(args.string("path"), projectRoot);
  }

  @Override
  String preview(Args args, ProjectPaths paths) throws ToolError, IOException {
    ProjectPaths.Resolved file = paths.forWrite(args.string("path"));
    refuseSpecialFile(file);
    String before = currentText(file.file());
    if (before == null && Files.exists(file.file(), LinkOption.NOFOLLOW_LINKS)) {
      return "";
    }
    return UnifiedDiff.of(file.relative(), before, args.string("content"));
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String path = args.string("path");
    byte[] content = args.string("content").getBytes(StandardCharsets.UTF_8);
    ProjectPaths.Resolved file = ProjectPaths.of(context).forWrite(path);
    if (Files.isDirectory(file.file(), LinkOption.NOFOLLOW_LINKS)) {
      return ToolResult.error(ErrorKind.REFUSED, file.display() + " is a directory; give a file path.");
    }
    checkCheckpointable(file);
    boolean existed = Files.exists(file.file(), LinkOption.NOFOLLOW_LINKS);
    writeRecorded(context.turn(), file, content);
    return ToolResult.ok((existed ? "Overwrote " : "Created ") + file.display() + " (" + content.length + " bytes).");
  }
}
