package dev.waymark.core.context;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Optional;

/** The text of one instruction file or of a file it imports, as the model gets it: never through a link, cut long. */
final class InstructionText {
  /** The most of one file the model gets: instruction files are meant to be short. */
  static final int MAX_CHARS = 64 * 1024;

  private InstructionText() {}

  /** The file's text, stripped, cut at {@link #MAX_CHARS} with a note; empty when it cannot be read. */
  static Optional<String> read(Path file) {
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      byte[] bytes = in.readNBytes(MAX_CHARS * 4 + 1); // enough for MAX_CHARS characters of any UTF-8
      String text = new String(bytes, StandardCharsets.UTF_8);
      boolean cut = text.length() > MAX_CHARS || bytes.length > MAX_CHARS * 4;
      if (text.length() > MAX_CHARS) {
        text = text.substring(0, MAX_CHARS);
      }
      text = text.strip();
      return Optional.of(cut ? text + "\n[" + file.getFileName() + " cut at " + MAX_CHARS + " characters]" : text);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
