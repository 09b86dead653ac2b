package dev.waymark.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which top-level class of a package names which other of the same package, read from the
 * sources as {@link PackageGraph} reads packages: a class names another when its code outside
 * comments and strings writes the other's simple name, itself or as the owner of a nested type
 * ({@code Outer.Inner} names {@code Outer}). A name after a dot is a member of something else, and
 * a name the file declares itself is its own nested type.
 */
public final class ClassGraph {
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern NAME = Pattern.compile("(\\.\\s*)?\\b([A-Z]\\w*)\\b");
  private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Z]\\w*)");

  /** Package → its top-level classes → the classes of the same package each names. */
  private final Map<String, Map<String, Set<String>>> packages;

  private ClassGraph(Map<String, Map<String, Set<String>>> packages) {
    this.packages = packages;
  }

  /** The graph of every {@code .java} file under {@code root}, one package per directory. */
  public static ClassGraph ofSources(Path root) {
    Map<String, Map<Path, String>> codeByPackage = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String name = file.getFileName().toString().replace(".java", "");
        if (name.equals("package-info")) {
          continue;
        }
        String code = PackageGraph.withoutComments(Files.readString(file));
        Matcher declared = PACKAGE.matcher(code);
        if (declared.find()) {
          codeByPackage.computeIfAbsent(declared.group(1), k -> new TreeMap<>()).put(file, code);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Map<String, Set<String>>> packages = new TreeMap<>();
    codeByPackage.forEach((pkg, files) -> packages.put(pkg, edges(files)));
    if (packages.isEmpty()) {
      throw new IllegalStateException("no class found under " + root);
    }
    return new ClassGraph(packages);
  }

  private static Map<String, Set<String>> edges(Map<Path, String> files) {
    Set<String> classes = new TreeSet<>();
    files.keySet().forEach(f -> classes.add(f.getFileName().toString().replace(".java", "")));
    Map<String, Set<String>> edges = new TreeMap<>();
    files.forEach((file, code) -> {
      String self = file.getFileName().toString().replace(".java", "");
      Set<String> own = new HashSet<>();
      Matcher declared = DECLARED.matcher(code);
      while (declared.find()) {
        own.add(declared.group(1));
      }
      Set<String> named = new TreeSet<>();
      Matcher name = NAME.matcher(code.substring(code.indexOf(';') + 1));
      while (name.find()) {
        String simple = name.group(2);
        if (name.group(1) == null && classes.contains(simple) && !simple.equals(self) && !own.contains(simple)) {
          named.add(simple);
        }
      }
      edges.put(self, named);
    });
    return edges;
  }

  /** Every package that has a class. */
  public Set<String> packages() {
    return packages.keySet();
  }

  /** The classes of {@code pkg} each top-level class names. */
  public Map<String, Set<String>> edges(String pkg) {
    return packages.getOrDefault(pkg, Map.of());
  }

  /** The rings of {@code pkg}: groups of two or more classes that name each other, round. */
  public List<Set<String>> rings(String pkg) {
    return PackageGraph.cycles(edges(pkg));
  }

  /** Every ring of every package, as {@code package: [A, B]}. */
  public List<String> rings() {
    List<String> rings = new ArrayList<>();
    for (String pkg : packages()) {
      rings(pkg).forEach(ring -> rings.add(pkg + ": " + ring));
    }
    return rings;
  }
}
