package dev.waymark.core.context;

import dev.waymark.core.checkpoint.project.ProjectWalker;
import dev.waymark.core.layer.View;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files and directories a prompt names with {@code @path}: their content (a file's, cut with a
 * note past {@link #MAX_FILE_CHARS}) or listing (a directory's) goes to the model after the prompt,
 * so it need not spend a tool call reading them. Only paths inside the project count; an {@code @}
 * that names nothing there (an e-mail address, {@code @Override}) is left as it is.
 */
public final class Mentions {
  /** What separates the prompt from what its mentions attached; the chat and lists show only the prompt. */
  public static final String ATTACHED = "\n\n[Attached by @-mentions in the prompt]";

  public static final int MAX_FILE_CHARS = 100_000;
  public static final int MAX_TOTAL_CHARS = 400_000;
  public static final int MAX_LISTED = 500;

  // "@" at the start or after a space or an opening bracket, up to the next space
  private static final Pattern MENTION = Pattern.compile("(?<=^|[\\s(\\[{\"'])@([^\\s]+)");

  private Mentions() {}

  /** The paths {@code prompt} mentions that exist in the project, in order, each once (directories end with {@code /}). */
  public static List<String> paths(Path root, String prompt) {
    return paths(root, null, prompt);
  }

  /** {@link #paths(Path, String)} in an isolated tab's {@code view} (null: the project itself). */
  public static List<String> paths(Path root, View view, String prompt) {
    Set<String> found = new LinkedHashSet<>();
    Matcher m = MENTION.matcher(prompt);
    while (m.find()) {
      String path = m.group(1);
      // a sentence's punctuation is not part of the path, unless a file is named so
      while (!path.isEmpty() && !exists(root, view, path) && ".,;:!?)]}\"'".indexOf(path.charAt(path.length() - 1)) >= 0) {
        path = path.substring(0, path.length() - 1);
      }
      if (!path.isEmpty() && exists(root, view, path)) {
        Path at = resolve(root, view, path);
        found.add(Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS) && !path.endsWith("/") ? path + "/" : path);
      }
    }
    return List.copyOf(found);
  }

  /** {@code prompt} with what its mentions name attached after {@link #ATTACHED}; the prompt itself when none does. */
  public static String expand(Path root, String prompt) {
    return expand(root, null, prompt);
  }

  /** {@link #expand(Path, String)} in an isolated tab's {@code view}: what the tab sees is attached (null: the project). */
  public static String expand(Path root, View view, String prompt) {
    // only what was typed names files: what is attached already (an MCP resource) is not searched
    List<String> paths = paths(root, view, typed(prompt));
    if (paths.isEmpty()) {
      return prompt;
    }
    StringBuilder text = new StringBuilder(prompt).append(prompt.contains(ATTACHED) ? "" : ATTACHED);
    for (String path : paths) {
      if (text.length() > prompt.length() + MAX_TOTAL_CHARS) {
        text.append("\n\n[@").append(path).append(" not attached: the mentions' total limit of ").append(MAX_TOTAL_CHARS)
            .append(" characters was reached; read_file reads it]");
        continue;
      }
      text.append("\n\n").append(path.endsWith("/") ? listing(root, view, path) : file(root, view, path));
    }
    return text.toString();
  }

  /** The prompt as the user typed it, without what its mentions attached. */
  public static String typed(String userMessage) {
    int at = userMessage.indexOf(ATTACHED);
    return at < 0 ? userMessage : userMessage.substring(0, at);
  }

  private static boolean exists(Path root, View view, String path) {
    Path at = resolve(root, view, path);
    return at != null && (Files.isRegularFile(at, LinkOption.NOFOLLOW_LINKS) || Files.isDirectory(at, LinkOption.NOFOLLOW_LINKS));
  }

  /** Where {@code path} is, or null when it is not a plain path inside the project (absolute, {@code ..}, through a link). */
  static Path resolve(Path root, String path) {
    return resolve(root, null, path);
  }

  /** {@link #resolve(Path, String)}, in {@code view} when there is one (where the view reads it from; null if it has none). */
  static Path resolve(Path root, View view, String path) {
    Path plain = plain(root, path);
    if (plain == null || view == null) {
      return plain;
    }
    String clean = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    try {
      Path at = view.locate(clean).orElse(null);
      return at == null || Files.isSymbolicLink(at) ? null : at;
    } catch (IOException e) {
      return null;
    }
  }

  private static Path plain(Path root, String path) {
    String clean = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    if (clean.isEmpty() || clean.startsWith("/") || clean.contains("\\") || clean.contains("\0")) {
      return null;
    }
    Path at = root;
    for (String part : clean.split("/")) {
      if (part.isEmpty() || part.equals(".") || part.equals("..")) {
        return null;
      }
      if (Files.isSymbolicLink(at)) {
        return null;
      }
      at = at.resolve(part);
    }
    return Files.isSymbolicLink(at) ? null : at;
  }

  private static String file(Path root, View view, String path) {
    Path at = resolve(root, view, path);
    try {
      long size = Files.size(at);
      if (ImageFiles.mediaType(path).isPresent()) {
        return "--- @" + path + ": an image (" + size + " bytes) ---";
      }
      byte[] bytes;
      try (InputStream in = Files.newInputStream(at, LinkOption.NOFOLLOW_LINKS)) {
        bytes = in.readNBytes(MAX_FILE_CHARS * 4);
      }
      String content;
      try {
        content = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
      } catch (CharacterCodingException e) {
        if (bytes.length < MAX_FILE_CHARS * 4 || content(bytes).indexOf('\0') >= 0) {
          return "--- @" + path + ": a binary file (" + size + " bytes), not attached ---";
        }
        content = content(bytes); // cut inside a character: the cut note says so
      }
      if (content.indexOf('\0') >= 0) {
        return "--- @" + path + ": a binary file (" + size + " bytes), not attached ---";
      }
      boolean cut = content.length() > MAX_FILE_CHARS || bytes.length < size;
      if (content.length() > MAX_FILE_CHARS) {
        content = content.substring(0, MAX_FILE_CHARS);
      }
      StringBuilder block = new StringBuilder("--- @").append(path).append(" ---\n").append(content);
      if (!content.endsWith("\n")) {
        block.append('\n');
      }
      if (cut) {
        block.append("[cut: only the first ").append(content.length()).append(" characters of ").append(size)
            .append(" bytes are attached; read_file reads the rest]\n");
      }
      return block.append("--- end of @").append(path).append(" ---").toString();
    } catch (IOException e) {
      return "--- @" + path + ": could not be read (" + e.getMessage() + ") ---";
    }
  }

  private static DirectoryStream<Path> emptyStream() {
    return new DirectoryStream<>() {
      @Override
      public Iterator<Path> iterator() {
        return Collections.emptyIterator();
      }

      @Override
      public void close() {}
    };
  }

  private static String content(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private static String listing(Path root, View view, String path) {
    Path at = resolve(root, view, path);
    List<String> names = new ArrayList<>();
    if (view != null) {
      String dir = path.substring(0, path.length() - 1);
      try {
        for (String name : view.list(dir)) {
          if (!ProjectWalker.EXCLUDED_DIRECTORIES.contains(name)) {
            Path entry = view.locate(dir + "/" + name).orElse(null);
            names.add(entry != null && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) ? name + "/" : name);
          }
        }
      } catch (IOException e) {
        return "--- @" + path + ": could not be listed (" + e.getMessage() + ") ---";
      }
      at = null;
    }
    try (DirectoryStream<Path> entries = at == null ? emptyStream() : Files.newDirectoryStream(at)) {
      for (Path entry : entries) {
        String name = entry.getFileName().toString();
        if (ProjectWalker.EXCLUDED_DIRECTORIES.contains(name)) {
          continue;
        }
        names.add(Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) ? name + "/" : name);
      }
    } catch (IOException e) {
      return "--- @" + path + ": could not be listed (" + e.getMessage() + ") ---";
    }
    names.sort(null);
    StringBuilder block = new StringBuilder("--- @").append(path).append(" (directory, ").append(names.size())
        .append(names.size() == 1 ? " entry" : " entries").append(") ---\n");
    names.stream().limit(MAX_LISTED).forEach(name -> block.append(name).append('\n'));
    if (names.size() > MAX_LISTED) {
      block.append("[... and ").append(names.size() - MAX_LISTED).append(" more; list_files lists them]\n");
    }
    return block.append("--- end of @").append(path).append(" ---").toString();
  }
}
