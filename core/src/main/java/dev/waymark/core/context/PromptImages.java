package dev.waymark.core.context;

import dev.waymark.core.model.ChatMessage;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The images a prompt sends: PNG, JPEG, GIF and WebP files it names, with {@code @} (in the
 * project) or as a path (a file dropped on the terminal pastes its path, quoted or with {@code \ }
 * before spaces, possibly outside the project: the user chose it).
 */
public final class PromptImages {
  /** The largest image sent: providers refuse more (Anthropic at 5 MB). */
  public static final long MAX_BYTES = 5L * 1024 * 1024;

  // a quoted path, or one whose spaces are escaped, or a plain word; ending in an image extension
  private static final Pattern PATH = Pattern.compile(
      "'([^']+\\.(?i:png|jpe?g|gif|webp))'|\"([^\"]+\\.(?i:png|jpe?g|gif|webp))\"|((?:[^\\s\\\\'\"]|\\\\ )+\\.(?i:png|jpe?g|gif|webp))(?=[\\s,.;:!?)]|$)");

  private PromptImages() {}

  /** What the prompt's images came to: those sent, and a line for each left out, saying why. */
  public record Found(List<ChatMessage.Image> images, List<String> leftOut) {}

  /** The images {@code prompt} names, read now. */
  public static Found in(Path root, String prompt, String home) {
    Set<Path> files = new LinkedHashSet<>();
    Matcher m = PATH.matcher(prompt);
    while (m.find()) {
      String written = m.group(1) != null ? m.group(1) : m.group(2) != null ? m.group(2) : m.group(3).replace("\\ ", " ");
      if (written.startsWith("@")) {
        written = written.substring(1);
      }
      Path file;
      if (written.startsWith("~/") && home != null) {
        file = Path.of(home, written.substring(2));
      } else if (written.startsWith("file://")) {
        file = Path.of(URI.create(written.replace(" ", "%20")));
      } else if (Path.of(written).isAbsolute()) {
        file = Path.of(written);
      } else {
        file = Mentions.resolve(root, written); // relative paths stay inside the project
      }
      if (file != null && Files.isRegularFile(file)) {
        files.add(file.toAbsolutePath().normalize());
      }
    }
    List<ChatMessage.Image> images = new ArrayList<>();
    List<String> leftOut = new ArrayList<>();
    for (Path file : files) {
      String name = file.getFileName().toString();
      try {
        long size = Files.size(file);
        if (size > MAX_BYTES) {
          leftOut.add(name + " is " + String.format(Locale.ROOT, "%.1f", size / (1024.0 * 1024)) + " MB, over the "
              + MAX_BYTES / (1024 * 1024) + " MB an image may be");
          continue;
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
          bytes = in.readNBytes((int) MAX_BYTES + 1);
        }
        String sniffed = sniff(bytes);
        if (sniffed == null) {
          leftOut.add(name + " is not a PNG, JPEG, GIF or WebP image");
          continue;
        }
        images.add(new ChatMessage.Image(sniffed, Base64.getEncoder().encodeToString(bytes), name));
      } catch (IOException | RuntimeException e) {
        leftOut.add(name + " could not be read (" + e.getMessage() + ")");
      }
    }
    return new Found(images, leftOut);
  }

  /** The media type the bytes show (the name can lie), or null for none of the four. */
  static String sniff(byte[] b) {
    if (b.length >= 8 && (b[0] & 0xff) == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G') {
      return "image/png";
    }
    if (b.length >= 3 && (b[0] & 0xff) == 0xff && (b[1] & 0xff) == 0xd8 && (b[2] & 0xff) == 0xff) {
      return "image/jpeg";
    }
    if (b.length >= 6 && b[0] == 'G' && b[1] == 'I' && b[2] == 'F' && b[3] == '8') {
      return "image/gif";
    }
    if (b.length >= 12 && b[0] == 'R' && b[1] == 'I' && b[2] == 'F' && b[3] == 'F' && b[8] == 'W' && b[9] == 'E'
        && b[10] == 'B' && b[11] == 'P') {
      return "image/webp";
    }
    return null;
  }

  /**
   * Whether {@code model} takes images: false for the models known to read text only, true
   * otherwise (a server that refuses them says so, and the turn shows its words).
   */
  public static boolean accepted(String model) {
    String name = model.toLowerCase(Locale.ROOT);
    int slash = name.lastIndexOf('/');
    String bare = slash < 0 ? name : name.substring(slash + 1);
    for (String textOnly : List.of("gpt-3.5", "deepseek-chat", "deepseek-reasoner", "deepseek-coder", "qwen2.5-coder",
        "qwen3-coder", "codestral", "codellama", "llama3.1", "llama3:", "mistral-large", "o1-mini", "o3-mini")) {
      if (bare.startsWith(textOnly)) {
        return false;
      }
    }
    return true;
  }
}
