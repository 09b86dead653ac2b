package dev.waymark.core.checkpoint.project;

import dev.waymark.core.checkpoint.lib.FileStat;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.ignore.IgnoreNode;

/**
 * Which rule leaves an entry of a project out, lowest priority first: the ignore files above the
 * project (its {@link IgnoreContext}), the {@code .gitignore} files from the root down, then the
 * {@code exclusions} setting and Waymark's own list, which win. Each directory's rules are a list
 * of {@link Frame}s, the deepest last; what is kept ({@link Kept}) is walked whatever they say.
 */
final class ExclusionRules {
  /** Directory names never walked, at any depth: version control, dependencies, build output, caches. */
  static final Set<String> EXCLUDED_DIRECTORIES = Set.of(".git", "node_modules", "target", "build", "dist",
      ".venv", "__pycache__", ".gradle", ".idea");

  private final Path root;
  private final IgnoreNode exclusions;
  /** Where the project sits in the enclosing git work tree ("" at its root, or without one); ignore patterns are relative to that. */
  private final String prefix;
  private final List<Frame> outer;

  /** One ignore file's rules, for paths below {@code prefix} (relative to the work tree, ending with {@code /}). */
  record Frame(String prefix, IgnoreNode node, Exclusion kind) {}

  ExclusionRules(Path root, List<String> exclusions, IgnoreContext context) {
    this.root = root;
    IgnoreNode node = new IgnoreNode();
    try {
      node.parse("settings", new ByteArrayInputStream(String.join("\n", exclusions).getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new IllegalStateException(e); // reading from memory
    }
    this.exclusions = node.getRules().isEmpty() ? null : node;
    this.prefix = context.projectPrefix();
    List<Frame> frames = new ArrayList<>();
    for (IgnoreSource source : context.sources()) {
      frames.add(new Frame(source.prefix(), source.node(), source.kind()));
    }
    this.outer = List.copyOf(frames);
  }

  /**
   * Why the entry {@code path} ({@code name}, as {@code stat}) is left out, under the ignore
   * {@code frames} of its directory, inside a left-out directory entered for what it keeps
   * ({@code inherited}, else null); null when it is walked.
   */
  Exclusion decide(String path, String name, FileStat stat, List<Frame> frames, Exclusion inherited, Kept keeps) {
    boolean isDir = stat.directory();
    if (name.equals(".git")) {
      return Exclusion.BUILT_IN;
    }
    Exclusion why = inherited != null ? inherited : rule(path, name, isDir, frames);
    // asked only of what a rule leaves out: most walks never need the index
    return why == null || (isDir ? keeps.below(path) : keeps.file(path, stat)) ? null : why;
  }

  /** The rule that leaves {@code path} out, whatever is kept; null when none does. */
  Exclusion rule(String path, String name, boolean isDir, List<Frame> frames) {
    if (name.equals(".git") || isDir && EXCLUDED_DIRECTORIES.contains(name)) {
      return Exclusion.BUILT_IN;
    }
    if (exclusions != null && Boolean.TRUE.equals(exclusions.checkIgnored(path, isDir))) {
      return Exclusion.SETTINGS;
    }
    return ignored(frames, prefix + path, isDir);
  }

  /** The ignore frames that apply inside {@code dir} from its ancestors (not from {@code dir} itself). */
  List<Frame> framesAbove(String dir, IgnoreRules rules) {
    List<Frame> frames = new ArrayList<>(outer);
    if (dir.isEmpty()) {
      return frames;
    }
    String[] segments = dir.split("/");
    StringBuilder ancestor = new StringBuilder();
    for (int i = 0; i < segments.length; i++) {
      String at = ancestor.length() == 0 ? "" : ancestor.substring(0, ancestor.length() - 1);
      IgnoreNode node = IgnoreRules.nodeOf(at, at.isEmpty() ? root : root.resolve(at), rules);
      if (node != null) {
        frames.add(new Frame(prefix + ancestor, node, Exclusion.IGNORED));
      }
      ancestor.append(segments[i]).append('/');
    }
    return frames;
  }

  /** The ignore frames that apply to the entries of {@code dir}: its ancestors' and its own. */
  List<Frame> framesIn(String dir, IgnoreRules rules) {
    return framesHere(framesAbove(dir, rules), dir, rules);
  }

  /** {@code above}, the frames of {@code dir}'s ancestors, with {@code dir}'s own {@code .gitignore} added if it has one. */
  List<Frame> framesHere(List<Frame> above, String dir, IgnoreRules rules) {
    IgnoreNode node = IgnoreRules.nodeOf(dir, dir.isEmpty() ? root : root.resolve(dir), rules);
    if (node == null) {
      return above;
    }
    List<Frame> here = new ArrayList<>(above);
    here.add(new Frame(prefix + (dir.isEmpty() ? "" : dir + "/"), node, Exclusion.IGNORED));
    return here;
  }

  /**
   * The rule leaving out {@code dir} or a directory above it, which a scan entered only for what it
   * keeps; null when none does. What else is in it stays left out by that rule.
   */
  Exclusion inheritedAt(String dir, IgnoreRules rules, Kept kept) {
    if (dir.isEmpty() || kept == Kept.NONE) {
      return null;
    }
    int slash = dir.lastIndexOf('/');
    String parent = slash < 0 ? "" : dir.substring(0, slash);
    Exclusion above = inheritedAt(parent, rules, kept);
    return above != null ? above : rule(dir, dir.substring(slash + 1), true, framesIn(parent, rules));
  }

  /** The kind of ignore file whose rule decides {@code path}, when that rule ignores it; null otherwise. */
  private static Exclusion ignored(List<Frame> frames, String path, boolean isDir) {
    for (int i = frames.size() - 1; i >= 0; i--) {
      Frame frame = frames.get(i);
      if (frame.node() == null || !path.startsWith(frame.prefix())) {
        continue;
      }
      Boolean verdict = frame.node().checkIgnored(path.substring(frame.prefix().length()), isDir);
      if (verdict != null) {
        return verdict ? frame.kind() : null;
      }
    }
    return null;
  }
}
