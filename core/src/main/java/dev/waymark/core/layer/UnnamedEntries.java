package dev.waymark.core.layer;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Applies the entries of a layer whose names are not UTF-8 ({@link LayerChanges.Unnamed}) by their
 * raw paths: Java reads such a name with a stand-in character and cannot name it again, but a path
 * it listed still leads there. No checkpoint records them (its paths are text), so they are
 * applied as the command left them and said, as ignored paths are; undo leaves them.
 */
public final class UnnamedEntries {
  private UnnamedEntries() {}

  /**
   * Deletes what the command deleted below a directory it removed: before the directory's own
   * deletion. Each is reached from the project's root without a link ({@link Beneath}): one below
   * a directory someone made a link meanwhile is left.
   */
  public static List<LayerChanges.Unnamed> deleteFirst(List<LayerChanges.Unnamed> entries) throws IOException {
    List<LayerChanges.Unnamed> left = new ArrayList<>();
    try (Beneath dirs = beneath(entries)) {
      for (LayerChanges.Unnamed entry : entries) {
        if (entry.source() == null) {
          Optional<Path> target = reached(dirs, entry);
          if (target.isPresent()) {
            deleteTree(target.get());
          } else {
            left.add(entry);
          }
        }
      }
    }
    return left;
  }

  /**
   * Moves the rest into the project, once the apply made the directories they go in; never through
   * a link. Returns those it left, as their directory is now a link or a file.
   */
  public static List<LayerChanges.Unnamed> moveAfter(List<LayerChanges.Unnamed> entries) throws IOException {
    List<LayerChanges.Unnamed> left = new ArrayList<>();
    try (Beneath dirs = beneath(entries)) {
      for (LayerChanges.Unnamed entry : entries) {
        if (entry.source() != null) {
          Optional<Path> target = reached(dirs, entry);
          if (target.isPresent()) {
            merge(entry.source(), target.get());
          } else {
            left.add(entry);
          }
        }
      }
    }
    return left;
  }

  /** The project's directories, from its root: the target's directory less as many names as {@code directory} has. */
  private static Beneath beneath(List<LayerChanges.Unnamed> entries) {
    if (entries.isEmpty()) {
      return new Beneath(Path.of("/nonexistent"));
    }
    LayerChanges.Unnamed first = entries.get(0);
    Path root = first.target().getParent();
    if (!first.directory().isEmpty()) {
      for (int i = first.directory().split("/").length; i > 0; i--) {
        root = root.getParent();
      }
    }
    return new Beneath(root);
  }

  /** {@code entry}'s raw path in its directory as reached without a link; empty below a link or a file. */
  private static Optional<Path> reached(Beneath dirs, LayerChanges.Unnamed entry) throws IOException {
    Optional<Path> dir = dirs.directoryPath(entry.directory());
    return dir.map(d -> d.resolve(entry.target().getFileName()));
  }

  /** {@code source} (in the upper directory) put at {@code target}: a whiteout deletes, a directory merges. */
  private static void merge(Path source, Path target) throws IOException {
    BasicFileAttributes from = UpperReader.attributesOrNull(source);
    if (from == null) {
      return; // moved already, by an apply a kill interrupted
    }
    if (UpperReader.whiteout(source, from)) {
      deleteTree(target);
      Files.delete(source);
      return;
    }
    BasicFileAttributes to = UpperReader.attributesOrNull(target);
    if (from.isDirectory() && to != null && to.isDirectory()) {
      try (Stream<Path> children = Files.list(source)) {
        for (Path child : (Iterable<Path>) children::iterator) {
          merge(child, target.resolve(child.getFileName()));
        }
      }
      Files.delete(source);
      return;
    }
    if (to != null) {
      deleteTree(target);
    }
    try {
      Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException acrossFileSystems) {
      if (from.isDirectory()) {
        // a directory cannot be copied whole to another file system: made there, then filled
        Files.createDirectory(target);
        merge(source, target);
      } else {
        Files.move(source, target, StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  private static void deleteTree(Path path) throws IOException {
    BasicFileAttributes attributes = UpperReader.attributesOrNull(path);
    if (attributes == null) {
      return;
    }
    if (attributes.isDirectory()) {
      try (Stream<Path> walk = Files.walk(path)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          try {
            Files.delete(p);
          } catch (NoSuchFileException | DirectoryNotEmptyException raced) {
            // gone already, or written meanwhile: what is left stays
          }
        }
      }
    } else {
      Files.deleteIfExists(path);
    }
  }
}
