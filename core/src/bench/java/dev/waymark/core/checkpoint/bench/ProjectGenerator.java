package dev.waymark.core.checkpoint.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Writes a synthetic but realistic project: nested source directories (a few modules, packages
 * and sub-packages, 8 to 40 files per directory), text files from a few hundred bytes to a few
 * KB (log-uniform, median about 1 KB) with mixed extensions. The same {@code files} and
 * {@code seed} give the same tree byte for byte.
 */
public final class ProjectGenerator {
  private static final String[] EXTENSIONS = {".java", ".java", ".java", ".ts", ".ts", ".py", ".md", ".json", ".yaml", ".txt"};
  private static final String[] WORDS = {
      "public", "static", "final", "class", "return", "value", "index", "buffer", "checkpoint", "tree",
      "node", "path", "result", "config", "stream", "parse", "render", "update", "cache", "handler",
      "request", "response", "session", "token", "offset", "length", "count", "items", "error", "state",
      "import", "export", "function", "const", "let", "if", "else", "for", "while", "new", "this",
      "null", "true", "false", "string", "int", "long", "list", "map", "set", "(", ")", "{", "}", ";", "=",
      "+", "->", "::", "//", "#", "@Override", "self", "def", "await", "async"};

  /** The generated project: its root and every file, project-relative with {@code /}. */
  public record Project(Path root, List<String> files, long bytes) {}

  private ProjectGenerator() {}

  public static Project generate(Path root, int files, long seed) throws IOException {
    Files.createDirectories(root);
    SplittableRandom random = new SplittableRandom(seed);
    List<String> paths = new ArrayList<>(files);
    long bytes = 0;
    int module = 0;
    int pkg = 0;
    int sub = 0;
    int inDir = 0;
    int dirSize = 8 + random.nextInt(33);
    Path dir = null;
    String dirName = null;
    StringBuilder text = new StringBuilder(8192);
    for (int i = 0; i < files; i++) {
      if (dir == null || inDir == dirSize) {
        if (dir != null) {
          // 8 sub-packages per package, 12 packages per module, then the next module
          if (++sub == 8) {
            sub = 0;
            if (++pkg == 12) {
              pkg = 0;
              module++;
            }
          }
        }
        dirName = "module" + module + "/src/main/java/dev/example/m" + module + "/pkg" + pkg
            + (sub == 0 ? "" : "/sub" + sub);
        dir = Files.createDirectories(root.resolve(dirName));
        inDir = 0;
        dirSize = 8 + random.nextInt(33);
      }
      String name = "File" + i + EXTENSIONS[random.nextInt(EXTENSIONS.length)];
      byte[] content = content(random, text, i);
      Files.write(dir.resolve(name), content);
      paths.add(dirName + "/" + name);
      bytes += content.length;
      inDir++;
    }
    return new Project(root, paths, bytes);
  }

  /** 200 B to 6 KB, log-uniform: most files are around a kilobyte. */
  private static byte[] content(SplittableRandom random, StringBuilder text, int fileNumber) {
    int target = (int) Math.round(Math.exp(Math.log(200) + random.nextDouble() * (Math.log(6000) - Math.log(200))));
    text.setLength(0);
    text.append("// generated file ").append(fileNumber).append('\n');
    while (text.length() < target) {
      int indent = random.nextInt(4) * 2;
      for (int s = 0; s < indent; s++) {
        text.append(' ');
      }
      int words = 3 + random.nextInt(10);
      for (int w = 0; w < words; w++) {
        if (w > 0) {
          text.append(' ');
        }
        text.append(WORDS[random.nextInt(WORDS.length)]);
      }
      text.append('\n');
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** {@code count} distinct files spread over the project, chosen by {@code seed}. */
  public static List<String> pick(List<String> files, int count, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<String> picked = new ArrayList<>(count);
    while (picked.size() < count) {
      String candidate = files.get(random.nextInt(files.size()));
      if (!picked.contains(candidate)) {
        picked.add(candidate);
      }
    }
    return picked;
  }

  /** Deletes {@code dir} and everything under it; never follows a link. */
  public static void deleteTree(Path dir) throws IOException {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        if (e != null) {
          throw e;
        }
        Files.delete(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
