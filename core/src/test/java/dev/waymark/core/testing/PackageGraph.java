package dev.waymark.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which Waymark package uses which, read from the sources: every {@code dev.waymark…Type} written
 * outside comments (imports and fully qualified names alike), so the rules tests need no library
 * and see what a reader sees.
 */
public final class PackageGraph {
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.waymark(?:\\.[a-z]\\w*)+)\\.([A-Z]\\w*)");

  /** One use: {@code file} (in package {@code from}) names {@code type} of package {@code to}. */
  public record Use(String from, String file, String to, String type) {
    @Override
    public String toString() {
      return file + " -> " + to + "." + type;
    }
  }

  private final List<Use> uses;
  private final Set<String> packages;

  private PackageGraph(List<Use> uses, Set<String> packages) {
    this.uses = List.copyOf(uses);
    this.packages = Collections.unmodifiableSet(new TreeSet<>(packages));
  }

  /** The graph of every {@code .java} file under the given source roots. */
  public static PackageGraph ofSources(Path... roots) {
    List<Use> uses = new ArrayList<>();
    Set<String> packages = new TreeSet<>();
    for (Path root : roots) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
          read(root, file, uses).ifPresent(packages::add);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    if (uses.isEmpty()) {
      throw new IllegalStateException("no use between packages found under " + List.of(roots));
    }
    return new PackageGraph(uses, packages);
  }

  /** Adds the uses {@code file} makes; returns its package. */
  private static Optional<String> read(Path root, Path file, List<Use> uses) throws IOException {
    String code = withoutComments(Files.readString(file));
    Matcher declared = PACKAGE.matcher(code);
    if (!declared.find()) {
      return Optional.empty();
    }
    String from = declared.group(1);
    Matcher reference = REFERENCE.matcher(code);
    while (reference.find()) {
      if (!reference.group(1).equals(from)) {
        uses.add(new Use(from, root.relativize(file).toString(), reference.group(1), reference.group(2)));
      }
    }
    return Optional.of(from);
  }

  /**
   * The code without its comments and string contents, so that a Javadoc link to another package
   * is no use of it, and a {@code "**}{@code /"} inside a string starts no comment.
   */
  static String withoutComments(String code) {
    StringBuilder kept = new StringBuilder(code.length());
    int i = 0;
    while (i < code.length()) {
      if (code.startsWith("//", i)) {
        int end = code.indexOf('\n', i);
        i = end < 0 ? code.length() : end;
      } else if (code.startsWith("/*", i)) {
        int end = code.indexOf("*/", i + 2);
        i = end < 0 ? code.length() : end + 2;
      } else if (code.startsWith("\"\"\"", i)) {
        int end = code.indexOf("\"\"\"", i + 3);
        i = end < 0 ? code.length() : end + 3;
        kept.append("\"\"");
      } else if (code.charAt(i) == '"' || code.charAt(i) == '\'') {
        char quote = code.charAt(i);
        int j = i + 1;
        while (j < code.length() && code.charAt(j) != quote) {
          j += code.charAt(j) == '\\' ? 2 : 1;
        }
        i = j + 1;
        kept.append(quote).append(quote);
      } else {
        kept.append(code.charAt(i++));
      }
    }
    return kept.toString();
  }

  public List<Use> uses() {
    return uses;
  }

  /** Every package a file is in. */
  public Set<String> packages() {
    return packages;
  }

  /** Package → the packages it uses. */
  public Map<String, Set<String>> edges() {
    Map<String, Set<String>> edges = new TreeMap<>();
    for (Use use : uses) {
      edges.computeIfAbsent(use.from(), k -> new TreeSet<>()).add(use.to());
    }
    return edges;
  }

  /** The groups of packages that use each other in a ring (Tarjan's strongly connected components of two or more). */
  public List<Set<String>> cycles() {
    return cycles(edges());
  }

  /** The strongly connected components of two or more nodes of any graph given as node → its successors. */
  public static List<Set<String>> cycles(Map<String, Set<String>> edges) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    List<Set<String>> cycles = new ArrayList<>();
    Set<String> nodes = new TreeSet<>(edges.keySet());
    edges.values().forEach(nodes::addAll);
    for (String node : nodes) {
      if (!index.containsKey(node)) {
        connect(node, edges, index, low, stack, cycles);
      }
    }
    return cycles;
  }

  private static void connect(String node, Map<String, Set<String>> edges, Map<String, Integer> index,
      Map<String, Integer> low, Deque<String> stack, List<Set<String>> cycles) {
    index.put(node, index.size());
    low.put(node, index.get(node));
    stack.push(node);
    for (String next : edges.getOrDefault(node, Set.of())) {
      if (!index.containsKey(next)) {
        connect(next, edges, index, low, stack, cycles);
        low.put(node, Math.min(low.get(node), low.get(next)));
      } else if (stack.contains(next)) {
        low.put(node, Math.min(low.get(node), index.get(next)));
      }
    }
    if (low.get(node).equals(index.get(node))) {
      Set<String> component = new TreeSet<>();
      String member;
      do {
        member = stack.pop();
        component.add(member);
      } while (!member.equals(node));
      if (component.size() > 1) {
        cycles.add(component);
      }
    }
  }
}
