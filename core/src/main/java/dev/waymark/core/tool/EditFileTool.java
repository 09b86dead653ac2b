package dev.waymark.core.tool;

import dev.waymark.core.checkpoint.UnifiedDiff;
import dev.waymark.core.protocol.ErrorKind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code edit_file}: replaces an exact string. The string must occur exactly once unless
 * {@code replace_all} is set, so that an edit never lands somewhere the model did not mean.
 * Only valid UTF-8 text is edited, so bytes the model never saw are never rewritten.
 */
final class EditFileTool extends AbstractTool {
  EditFileTool(ToolSettings settings) {
    super("edit_file",
        "Replace an exact string in a file. old_string must match the file exactly (whitespace and indentation "
            + "included) and occur exactly once, unless replace_all is true. Read the file first.",
        new Args.Schema()
            .string("path", "File path, relative to the project root", true)
            .string("old_string", "The exact text to replace", true)
            .string("new_string", "The text to put in its place (must differ from old_string)", true)
            .bool("replace_all", "Replace every occurrence instead of exactly one (default false)", false),
        ToolKind.EDIT, settings);
  }

  @Override
  String summary(Args args) throws ToolError {
    return "edit " + args.string("path");
  }

  @Override
  Optional<Sensitive> sensitive(Args args, Path projectRoot) throws ToolError {
    return waymarkFilesAt(args.string("path"), projectRoot);
  }

  @Override
  String preview(Args args, ProjectPaths paths) throws ToolError, IOException {
    ProjectPaths.Resolved file = paths.forWrite(args.string("path"));
    String text = currentText(file.file());
    String oldString = args.string("old_string");
    if (text == null || oldString.isEmpty() || !text.contains(oldString)) {
      return "";
    }
    String newString = args.string("new_string");
    String edited = args.optionalBoolean("replace_all").orElse(false)
        ? text.replace(oldString, newString)
        : text.substring(0, text.indexOf(oldString)) + newString + text.substring(text.indexOf(oldString) + oldString.length());
    return UnifiedDiff.of(file.relative(), text, edited);
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String path = args.string("path");
    String oldString = args.string("old_string");
    String newString = args.string("new_string");
    boolean replaceAll = args.optionalBoolean("replace_all").orElse(false);
    if (oldString.isEmpty()) {
      return ToolResult.error(ErrorKind.REFUSED, "old_string is empty; to create or overwrite a whole file use write_file.");
    }
    if (oldString.equals(newString)) {
      return ToolResult.error(ErrorKind.REFUSED, "old_string and new_string are the same; there is nothing to change.");
    }
    ProjectPaths.Resolved file = ProjectPaths.of(context).forWrite(path);
    if (!Files.exists(file.file(), LinkOption.NOFOLLOW_LINKS)) {
      return ToolResult.error(ErrorKind.NOT_FOUND, "File not found: " + file.display() + " (use write_file to create a file).");
    }
    if (!Files.isRegularFile(file.file(), LinkOption.NOFOLLOW_LINKS)) {
      return ToolResult.error(ErrorKind.REFUSED, file.display() + " is not a regular file.");
    }
    checkCheckpointable(file);
    String text;
    try {
      text = StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(Files.readAllBytes(file.file()))).toString();
    } catch (CharacterCodingException e) {
      return ToolResult.error(ErrorKind.REFUSED, file.display() + " is not UTF-8 text; edit_file cannot change it.");
    }
    int count = 0;
    for (int i = text.indexOf(oldString); i >= 0; i = text.indexOf(oldString, i + oldString.length())) {
      count++;
    }
    if (count == 0) {
      String hint = text.contains("\r\n") && oldString.contains("\n") && !oldString.contains("\r\n")
          ? " The file has Windows (CRLF) line endings." : "";
      return ToolResult.error(ErrorKind.NOT_FOUND, "old_string was not found in " + file.display() + ". It must match the file exactly, "
          + "whitespace and indentation included; read the file again." + hint);
    }
    if (count > 1 && !replaceAll) {
      return ToolResult.error(ErrorKind.REFUSED, "old_string occurs " + count + " times in " + file.display() + "; include more "
          + "surrounding lines to make it unique, or set replace_all to true.");
    }
    String edited;
    if (replaceAll) {
      edited = text.replace(oldString, newString);
    } else {
      int at = text.indexOf(oldString);
      edited = text.substring(0, at) + newString + text.substring(at + oldString.length());
    }
    byte[] bytes = edited.getBytes(StandardCharsets.UTF_8);
    writeRecorded(context.turn(), file, bytes);
    return ToolResult.ok("Edited " + file.display() + ": replaced " + count + (count == 1 ? " occurrence." : " occurrences."));
  }
}
