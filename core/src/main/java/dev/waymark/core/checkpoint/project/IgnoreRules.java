package dev.waymark.core.checkpoint.project;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jgit.ignore.IgnoreNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code .gitignore} rules of each directory a walk entered, by project-relative directory
 * ({@code ""} for the root). A walk given these rules uses them instead of the files on disk,
 * so that a command that edits a {@code .gitignore} cannot make ignored files look created or
 * deleted. A directory the rules do not know (created since) reads its own file.
 */
public final class IgnoreRules {
  private static final Logger LOG = LoggerFactory.getLogger(IgnoreRules.class);

  private final Map<String, Optional<Parsed>> byDirectory;
  private final boolean recording;
  /** Whether a directory the rules do not know reads its own file (else it has none). */
  private final boolean readsUnknown;
  /** Whether what is read for a directory the rules do not know is kept in them. */
  private final boolean keepsUnknown;

  private IgnoreRules(Map<String, Optional<Parsed>> byDirectory, boolean recording, boolean readsUnknown) {
    this(byDirectory, recording, readsUnknown, false);
  }

  private IgnoreRules(Map<String, Optional<Parsed>> byDirectory, boolean recording, boolean readsUnknown,
      boolean keepsUnknown) {
    this.byDirectory = byDirectory;
    this.recording = recording;
    this.readsUnknown = readsUnknown;
    this.keepsUnknown = keepsUnknown;
  }

  /** Empty rules that a scan fills with what it reads. */
  public static IgnoreRules recording() {
    return new IgnoreRules(new ConcurrentHashMap<>(), true, true);
  }

  /** These rules, for a later scan to use instead of the files on disk. */
  public IgnoreRules replaying() {
    return new IgnoreRules(byDirectory, false, true);
  }

  /**
   * A copy of these rules that also keeps the files of directories they do not know, read from
   * disk: the rules of a scan brought up to date from an earlier one, when no ignore file changed.
   */
  public IgnoreRules extending() {
    return new IgnoreRules(new ConcurrentHashMap<>(byDirectory), false, true, true);
  }

  /** These rules, with {@code dir}'s {@code .gitignore} read as {@code text} rather than from disk (null: none). */
  public IgnoreRules with(String dir, byte[] text) {
    Map<String, Optional<Parsed>> map = new ConcurrentHashMap<>(byDirectory);
    map.put(dir, text == null ? Optional.empty() : Optional.ofNullable(Parsed.of(dir, text)));
    return new IgnoreRules(map, false, true, true);
  }

  /** Rules from {@link #texts()} kept elsewhere: only the directories named there have any. */
  public static IgnoreRules fixed(Map<String, String> texts) {
    Map<String, Optional<Parsed>> map = new ConcurrentHashMap<>();
    texts.forEach((dir, text) -> map.put(dir, Optional.ofNullable(Parsed.of(dir, text.getBytes(StandardCharsets.UTF_8)))));
    return new IgnoreRules(map, false, false);
  }

  /** The text of each {@code .gitignore} seen, by directory. */
  public Map<String, String> texts() {
    Map<String, String> texts = new TreeMap<>();
    byDirectory.forEach((dir, parsed) -> parsed.ifPresent(p -> texts.put(dir, p.text())));
    return texts;
  }

  /**
   * The {@code .gitignore} of {@code dir}: recorded into {@code rules} while recording, taken from
   * them while replaying (read from disk for a directory they do not know), from disk otherwise.
   */
  static IgnoreNode nodeOf(String dir, Path dirPath, IgnoreRules rules) {
    if (rules == null) {
      return parse(dirPath.resolve(".gitignore"));
    }
    if (rules.recording) {
      Parsed parsed = readIgnore(dirPath.resolve(".gitignore"));
      rules.byDirectory.put(dir, Optional.ofNullable(parsed));
      return parsed == null ? null : parsed.node();
    }
    Optional<Parsed> known = rules.byDirectory.get(dir);
    if (known != null) {
      return known.map(Parsed::node).orElse(null);
    }
    if (!rules.readsUnknown) {
      return null;
    }
    Parsed parsed = readIgnore(dirPath.resolve(".gitignore"));
    if (rules.keepsUnknown) {
      rules.byDirectory.put(dir, Optional.ofNullable(parsed));
    }
    return parsed == null ? null : parsed.node();
  }

  /** The rules of an ignore file; null when it does not exist, cannot be read, or has none. */
  static IgnoreNode parse(Path file) {
    Parsed parsed = readIgnore(file);
    return parsed == null ? null : parsed.node();
  }

  private static Parsed readIgnore(Path file) {
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
      return null;
    }
    try {
      return Parsed.of(file.toString(), Files.readAllBytes(file));
    } catch (IOException e) {
      LOG.debug("cannot read {}: {}", file, e.toString());
      return null;
    }
  }

  /** One {@code .gitignore}: its text and rules. */
  record Parsed(String text, IgnoreNode node) {
    static Parsed of(String name, byte[] bytes) {
      IgnoreNode node = new IgnoreNode();
      try {
        node.parse(name, new ByteArrayInputStream(bytes));
      } catch (IOException e) {
        throw new IllegalStateException(e); // reading from memory
      }
      return node.getRules().isEmpty() ? null : new Parsed(new String(bytes, StandardCharsets.UTF_8), node);
    }
  }
}
