package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.project.Exclusion;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import java.util.Optional;

/**
 * What the store knows of the project's files, shared by both captures through the store's wiring
 * (as the write log and the command slot are), so that the layer capture never calls the comparison
 * capture. Nothing here walks the project: a view answers from what it already holds, or not at all.
 */
public interface ProjectView {
  /** A view that holds nothing: no scan vouches for any file, and only Waymark's own list leaves paths out. */
  ProjectView NONE = new ProjectView() {
    @Override
    public Optional<Vouch> vouchNow() {
      return Optional.empty();
    }

    @Override
    public Optional<byte[]> heldThen(Vouch vouch, String path) {
      return Optional.empty();
    }

    @Override
    public boolean sawThen(Vouch vouch, String path) {
      return false;
    }

    @Override
    public Exclusion exclusionOf(String path, FileStat stat, IgnoreRules rules) {
      return null;
    }

    @Override
    public void refreshSoon(long maxFileSize) {}
  };

  /** What the project's files held at one moment, as far as something vouches for them. */
  interface Vouch {}

  /** What vouches for the project's files now; empty when nothing does (no scan taken, no notifications). */
  Optional<Vouch> vouchNow();

  /** The bytes {@code path} held when {@code vouch} was taken, when it vouches for them and they can be read. */
  Optional<byte[]> heldThen(Vouch vouch, String path);

  /** Whether {@code vouch} vouches that {@code path} was there when it was taken. */
  boolean sawThen(Vouch vouch, String path);

  /** Why a change to {@code path} (whose entry is {@code stat}) is not recorded under {@code rules}; null when it is. */
  Exclusion exclusionOf(String path, FileStat stat, IgnoreRules rules);

  /** After a command changed the project: brings what vouches for the files up to date, if anything does (never a first walk). */
  void refreshSoon(long maxFileSize);
}
