package dev.waymark.core.tool;

import dev.waymark.core.protocol.ErrorKind;
import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code read_file}: a text file's lines, numbered as {@code cat -n} does, so that the model can
 * quote them exactly in {@code edit_file}. Output is capped by lines and by characters, and says
 * where to continue; binary files are described, not dumped.
 */
final class ReadFileTool extends AbstractTool {
  static final int MAX_LINE_CHARS = 2_000;

  ReadFileTool(ToolSettings settings) {
    super("read_file",
        "Read a text file in the project. Returns numbered lines (line number, tab, text). Use offset and limit to "
            + "page through a long file. Binary files are reported, not shown.",
        new Args.Schema()
            .string("path", "File path, relative to the project root", true)
            .integer("offset", "1-based line number to start at (default 1)", false)
            .integer("limit", "Number of lines to return (default and maximum " + settings.readMaxLines() + ")", false),
        ToolKind.READ, settings);
  }

  @Override
  String summary(Args args) throws ToolError {
    return "read " + args.string("path");
  }

  /**
   * The next line, cut after {@link #MAX_LINE_CHARS} characters; the rest of a longer line is
   * skipped without being held, so a file of one 2 GB line costs time, not memory.
   */
  static String boundedLine(Reader reader) throws IOException {
    StringBuilder line = new StringBuilder();
    boolean cut = false;
    int c;
    while ((c = reader.read()) != -1) {
      if (c == '\n') {
        break;
      }
      if (line.length() < MAX_LINE_CHARS) {
        line.append((char) c);
      } else {
        cut = true;
      }
    }
    if (c == -1 && line.length() == 0 && !cut) {
      return null;
    }
    if (line.length() > 0 && line.charAt(line.length() - 1) == '\r') {
      line.setLength(line.length() - 1);
    }
    return cut ? line + " [line cut at " + MAX_LINE_CHARS + " characters]" : line.toString();
  }

  @Override
  Optional<Sensitive> sensitive(Args args, Path projectRoot) throws ToolError {
    return secretsAt(args.string("path"), projectRoot);
  }

  @Override
  ToolResult execute(Args args, ToolContext context) throws ToolError, IOException {
    String path = args.string("path");
    long offset = args.optionalLong("offset", 1, Integer.MAX_VALUE).orElse(1L);
    long limit = Math.min(args.optionalLong("limit", 1, Integer.MAX_VALUE).orElse((long) settings.readMaxLines()),
        settings.readMaxLines());
    ProjectPaths.Resolved file = ProjectPaths.of(context).forRead(path);
    if (!Files.exists(file.file(), LinkOption.NOFOLLOW_LINKS)) {
      return ToolResult.error(ErrorKind.NOT_FOUND, "File not found: " + file.display());
    }
    if (Files.isDirectory(file.file())) {
      return ToolResult.error(ErrorKind.REFUSED, file.display() + " is a directory; use list_files to see what it holds.");
    }
    if (!Files.isRegularFile(file.file())) {
      return ToolResult.error(ErrorKind.REFUSED, file.display() + " is not a regular file.");
    }
    long size = Files.size(file.file());
    if (looksBinary(file.file())) {
      return ToolResult.ok(file.display() + " is a binary file (" + size + " bytes); its content is not shown.");
    }
    if (size == 0) {
      return ToolResult.ok(file.display() + " is empty.");
    }
    var decoder = StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
    StringBuilder out = new StringBuilder();
    boolean partial = size > settings.maxFileSize();
    InputStream in = Files.newInputStream(file.file());
    if (partial) {
      in = limit(in, settings.maxFileSize()); // a huge file costs no more than a big one
    }
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, decoder))) {
      long number = 0;
      String line;
      while (number < offset - 1 && boundedLine(reader) != null) {
        number++;
      }
      if (number < offset - 1) {
        return ToolResult.error(ErrorKind.REFUSED, file.display() + " has only " + number + " lines; offset " + offset + " is past its end.");
      }
      long shown = 0;
      while ((line = boundedLine(reader)) != null) {
        number++;
        String numbered = String.format("%6d\t%s%n", number, line);
        if (out.length() + numbered.length() > settings.readMaxChars() && shown > 0) {
          out.append("[output capped at ").append(settings.readMaxChars()).append(" characters; continue with offset=")
              .append(number).append("]\n");
          return ToolResult.ok(out.toString());
        }
        out.append(numbered);
        shown++;
        if (shown == limit) {
          if (boundedLine(reader) != null) {
            out.append("[more lines follow; continue with offset=").append(number + 1).append("]\n");
          }
          break;
        }
      }
      if (shown == 0) {
        return ToolResult.error(ErrorKind.REFUSED, file.display() + " has only " + number + " lines; offset " + offset + " is past its end."
            + (partial ? " (Only its first " + settings.maxFileSize() + " bytes are read: it is " + size + " bytes.)" : ""));
      }
    }
    if (partial) {
      out.append("[").append(file.display()).append(" is ").append(size).append(" bytes; only its first ")
          .append(settings.maxFileSize()).append(" are read]\n");
    }
    return ToolResult.ok(out.toString());
  }

  /** {@code in} ending after {@code max} bytes. */
  static InputStream limit(InputStream in, long max) {
    return new FilterInputStream(in) {
      private long left = max;

      @Override
      public int read() throws IOException {
        if (left <= 0) {
          return -1;
        }
        int b = super.read();
        if (b >= 0) {
          left--;
        }
        return b;
      }

      @Override
      public int read(byte[] buffer, int offset, int length) throws IOException {
        if (left <= 0) {
          return -1;
        }
        int n = super.read(buffer, offset, (int) Math.min(length, left));
        if (n > 0) {
          left -= n;
        }
        return n;
      }

      @Override
      public long skip(long n) throws IOException {
        long skipped = super.skip(Math.min(n, left));
        left -= skipped;
        return skipped;
      }

      @Override
      public int available() throws IOException {
        return (int) Math.min(super.available(), left);
      }

      @Override
      public boolean markSupported() {
        return false;
      }
    };
  }
}
