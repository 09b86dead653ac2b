package dev.waymark.core.checkpoint.project;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.eclipse.jgit.attributes.Attribute;
import org.eclipse.jgit.attributes.AttributesNode;
import org.eclipse.jgit.attributes.AttributesRule;

/**
 * The {@code .gitattributes} rules that make the checked-out file differ from the blob. Only
 * rules setting such an attribute are kept, so a repository without any costs nothing per path.
 */
record Conversions(List<Scoped> rules) {
  private static final List<String> CONVERTING = List.of("filter", "ident", "working-tree-encoding");

  record Scoped(String prefix, AttributesRule rule) {}

  /** {@code nested}: the tracked {@code .gitattributes} files below the root, repository-relative. */
  static Conversions read(Path workTree, Path commonDir, List<String> nested) throws IOException {
    return read(workTree, commonDir, nested, Conversions::converting);
  }

  /** The rules of those files that set an attribute {@code kept} accepts. */
  static Conversions read(Path workTree, Path commonDir, List<String> nested,
      Predicate<Attribute> kept) throws IOException {
    List<Scoped> rules = new ArrayList<>();
    collect("", commonDir.resolve("info/attributes"), kept, rules);
    collect("", workTree.resolve(".gitattributes"), kept, rules);
    for (String file : nested) {
      collect(file.substring(0, file.length() - ".gitattributes".length()), workTree.resolve(file), kept, rules);
    }
    return new Conversions(rules);
  }

  /** An attribute that makes the checked-out file differ from the blob. */
  static boolean converting(Attribute a) {
    return CONVERTING.contains(a.getKey()) && a.getState() != Attribute.State.UNSET
        || a.getKey().equals("eol") && "crlf".equals(a.getValue())
        || a.getKey().equals("crlf") && a.getState() == Attribute.State.SET;
  }

  /** An attribute under which git may store CRLF as LF (wider than git's rules: the sizes decide). */
  static boolean touchesLineEndings(Attribute a) {
    return (a.getKey().equals("text") || a.getKey().equals("eol") || a.getKey().equals("crlf"))
        && a.getState() != Attribute.State.UNSET;
  }

  private static void collect(String prefix, Path file, Predicate<Attribute> kept, List<Scoped> into)
      throws IOException {
    if (!Files.isRegularFile(file)) {
      return;
    }
    AttributesNode node = new AttributesNode();
    try (InputStream in = Files.newInputStream(file)) {
      node.parse(in);
    }
    for (AttributesRule rule : node.getRules()) {
      for (Attribute a : rule.getAttributes()) {
        if (kept.test(a)) {
          into.add(new Scoped(prefix, rule));
          break;
        }
      }
    }
  }

  boolean converts(String repoPath) {
    for (Scoped scoped : rules) {
      if (repoPath.startsWith(scoped.prefix)
          && scoped.rule.isMatch(repoPath.substring(scoped.prefix.length()), false)) {
        return true;
      }
    }
    return false;
  }
}
