package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.project.Exclusion;
import dev.waymark.core.checkpoint.project.IgnoreRules;
import dev.waymark.core.checkpoint.project.UserGitRepository;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import dev.waymark.core.layer.ApplyBases;
import dev.waymark.core.layer.ApplyPlan;
import dev.waymark.core.layer.Layer;
import dev.waymark.core.layer.LayerApply;
import dev.waymark.core.layer.LayerChange;
import dev.waymark.core.layer.LayerChanges;
import dev.waymark.core.layer.UnnamedEntries;
import dev.waymark.core.layer.UpperReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a command's layer in its checkpoint, then applies it to the project: every change is
 * stored and recorded (one commit, the write log noted) before {@link LayerApply} makes any; a
 * path changed meanwhile is merged three-way, else left as the project has it, the command's
 * version recorded all the same and kept under a {@code rescued} tag. What the ignore rules or the
 * size limit leave out is applied but not recorded. One apply at a time per project.
 */
final class LayerRecording {
  private static final Logger LOG = LoggerFactory.getLogger(LayerRecording.class);

  private final Path root;
  private final ShadowRepository repo;
  /** The observed capture of the same project: its write log and its rules for what is left out are shared. */
  private final ProjectView view;
  private final WriteLog writeLog;
  /** How a file the command and someone else both changed is merged (a restore merges the same way). */
  private final LayerApply.Merge merge;

  LayerRecording(Path layersRoot, ShadowRepository repo, ProjectView view, WriteLog writeLog, LayerApply.Merge merge) {
    this.root = layersRoot;
    this.repo = repo;
    this.view = view;
    this.writeLog = writeLog;
    this.merge = merge;
  }

  /**
   * What applying a layer did: the changes made and recorded (and those skipped), what was not
   * applied (recorded in the checkpoint all the same, as the command's) and the tag it is kept under.
   */
  record Outcome(WorkTreeChanges changes, List<String> notApplied, Optional<String> rescueTag) {
    public Outcome {
      notApplied = List.copyOf(notApplied);
    }
  }

  Outcome applyAndRecord(TabRecords turn, Layer layer, Set<String> mountPoints, long maxFileSize,
      LayerApply.SoFar soFar, boolean keepUpper) {
    return applyAndRecord(turn, layer, mountPoints, maxFileSize, soFar, keepUpper, Optional.empty());
  }

  /**
   * As above; {@code startedFrom}: what the project held as the command started, as far as the
   * latest scan vouched for it then (the base of a file someone else changed meanwhile).
   */
  Outcome applyAndRecord(TabRecords turn, Layer layer, Set<String> mountPoints, long maxFileSize,
      LayerApply.SoFar soFar, boolean keepUpper, Optional<ProjectView.Vouch> startedFrom) {
    try (CommandSlot.Held applying = applySlot(layer.project())) {
      LayerChanges read = UpperReader.read(layer.upper(), layer.project(), mountPoints);
      List<WorkTreeChanges.Skipped> skipped = new ArrayList<>();
      for (String path : read.unsupported()) {
        skipped.add(new WorkTreeChanges.Skipped(path, "a FIFO, socket or device: not applied to the project"));
      }
      // what would make git run a program outside the sandbox never reaches the project
      List<GitProgramGuard.Refused> refused = GitProgramGuard.refused(layer, read.changes());
      refused.forEach(r -> skipped.add(new WorkTreeChanges.Skipped(r.path(), r.why())));
      List<LayerChange> changes = GitProgramGuard.without(read.changes(), refused);
      // what was below a directory the command removed goes before the directory does
      Set<LayerChanges.Unnamed> unapplied = new HashSet<>(UnnamedEntries.deleteFirst(read.unnamed()));
      Map<String, FileChange> recorded = new LinkedHashMap<>();
      Set<String> clashed = new HashSet<>();
      IgnoreRules rules = rulesAtTurnStart(turn);
      // why each directory above a change is left out (absent: it is not), decided once
      Map<String, Optional<Exclusion>> directories = new HashMap<>();
      // a left-out file the command moved where it is recorded: its deletion is recorded too, or undo loses it
      Set<String> movedOut = LayerMovesOut.find(layer.project(), changes, maxFileSize,
          (path, stat) -> exclusion(layer, path, stat, rules, directories) != null);
      UsersRepository users = new UsersRepository(layer.project());
      LayerApply.Result result;
      try {
        result = LayerApply.apply(layer, changes, bases(turn, layer, startedFrom, users), merge,
          new LayerApply.Recorder() {
            /** Read but not yet stored: stored in batches (one pack each), then recorded together. */
            private final List<String> paths = new ArrayList<>();
            private final List<FileState> states = new ArrayList<>();
            private long bytes;

            @Override
            public void beforeChange(String path, Path current, Path after) throws IOException {
              // each side looked at once: its stat serves the rules, the size limit and the read
              FileStat now = current == null ? FileStat.MISSING : FileStat.read(current);
              FileStat then = after == null ? FileStat.MISSING : FileStat.read(after);
              Exclusion why = exclusion(layer, path, after != null ? then : now, rules, directories);
              if (why != null && !movedOut.contains(path)) {
                skipped.add(new WorkTreeChanges.Skipped(path, why.described() + ": applied, not recorded"));
                return;
              }
              long size = Math.max(sizeOf(now), sizeOf(then));
              if (size > maxFileSize) {
                skipped.add(new WorkTreeChanges.Skipped(path, "larger than the " + maxFileSize
                    + "-byte limit: applied, not recorded, and undo leaves it"));
                return;
              }
              paths.add(path);
              states.add(current == null ? FileState.absent() : FileState.read(current, now));
              states.add(after == null ? FileState.absent() : FileState.read(after, then));
              bytes += 2 * size;
              if (bytes > BATCH_BYTES) {
                store();
              }
            }

            private void store() {
              List<byte[]> contents = new ArrayList<>();
              for (FileState state : states) {
                if (state.exists()) {
                  contents.add(state.contentUnsafe());
                }
              }
              Iterator<ObjectId> ids = repo.insertBlobs(contents).iterator();
              List<FileChange> batch = new ArrayList<>();
              for (int i = 0; i < paths.size(); i++) {
                batch.add(new FileChange(paths.get(i), version(states.get(2 * i), ids), version(states.get(2 * i + 1), ids)));
              }
              turn.recordStoredChanges(batch).forEach((path, why) -> skipped.add(new WorkTreeChanges.Skipped(path, why)));
              batch.forEach(change -> recorded.put(change.path(), change));
              paths.clear();
              states.clear();
              bytes = 0;
            }

            @Override
            public void clashed(String path, Path current, Path commandVersion) throws IOException {
              clashed.add(path);
              beforeChange(path, current, commandVersion);
            }

            @Override
            public void allTold() {
              store();
              turn.persist(); // every change under the checkpoint's tag before the first is made
              // noted before they are made: a command captured by comparison meanwhile does not take them for its own
              writeLog.append(turn.tabId(), recorded.values().stream()
                  .filter(change -> !clashed.contains(change.path())).toList(), System.currentTimeMillis());
            }
          }, soFar, keepUpper);
      } finally {
        users.close();
      }
      if (!keepUpper) { // moved whole, so not while processes still write in the layer
        unapplied.addAll(UnnamedEntries.moveAfter(read.unnamed()));
      }
      for (LayerChanges.Unnamed entry : read.unnamed()) {
        skipped.add(new WorkTreeChanges.Skipped(entry.shown(), "its name is not UTF-8: " + (unapplied.contains(entry)
            ? "not applied, as a link or a file now stands where its directory was"
            : (keepUpper && entry.source() != null ? "applied once its processes end" : "applied")
                + ", not recorded, and undo leaves it")));
      }
      List<FileChange> made = new ArrayList<>();
      for (FileChange change : turn.changes()) {
        if (recorded.containsKey(change.path()) && !clashed.contains(change.path())) {
          made.add(change);
        }
      }
      List<String> notApplied = new ArrayList<>();
      Optional<String> tag = Optional.empty();
      if (!result.clashes().isEmpty()) {
        tag = Optional.of(rescue(turn, result.clashes()));
        for (LayerApply.Clash clash : result.clashes()) {
          notApplied.add(clash.path() + ": " + clash.reason());
        }
      }
      if (!keepUpper) {
        try {
          layer.delete();
        } catch (IOException e) {
          LOG.warn("{} was applied but could not be removed", layer, e); // without its journal, it is never applied again
        }
      }
      return new Outcome(new WorkTreeChanges(made, skipped), notApplied, tag);
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not apply {}", layer, e);
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not apply the command's changes to the project (" + e.getMessage()
          + "); they are kept in " + layer.directory() + " and applied when Waymark next opens this tab", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException(CheckpointException.Kind.INTERRUPTED, "Interrupted before the command's changes were applied; they are kept in "
          + layer.directory() + " and applied when Waymark next opens this tab", e);
    }
  }

  /**
   * Finishes the apply of {@code layer} that a kill stopped part way ({@code plan}: what it had
   * decided, every change recorded in {@code turn}'s checkpoint before the first was made): makes
   * what the plan still holds, keeps the command's versions of the paths that clashed under a
   * {@code rescued} tag, and removes the layer. Nothing is recorded again, and nothing the apply
   * already made is taken for someone else's change.
   */
  Outcome finishInterrupted(TabRecords turn, Layer layer, ApplyPlan plan) {
    try (CommandSlot.Held applying = applySlot(layer.project())) {
      // kept first: the finish journals the rest anew, without the clashes decided before the kill
      Optional<String> tag = plan.clashes().isEmpty() ? Optional.empty() : Optional.of(rescue(turn, plan.clashes()));
      LayerApply.Result result = plan.finish(merge, (path, current, after) -> {});
      // the entries whose names are not UTF-8 are moved after the rest (their deletions were made before the plan)
      UnnamedEntries.moveAfter(UpperReader.read(layer.upper(), layer.project(), Set.of()).unnamed());
      List<String> notApplied = new ArrayList<>();
      plan.clashes().forEach(clash -> notApplied.add(clash.path() + ": " + clash.reason()));
      if (!result.clashes().isEmpty()) {
        String later = rescue(turn, result.clashes());
        tag = Optional.of(tag.map(first -> first + ", " + later).orElse(later));
        result.clashes().forEach(clash -> notApplied.add(clash.path() + ": " + clash.reason() + " (since Waymark stopped)"));
      }
      Set<String> paths = plan.paths();
      List<FileChange> made = turn.changes().stream().filter(c -> paths.contains(c.path())).toList();
      try {
        layer.delete();
      } catch (IOException e) {
        LOG.warn("{} was applied but could not be removed", layer, e);
      }
      return new Outcome(new WorkTreeChanges(made, List.of()), notApplied, tag);
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not finish applying {}", layer, e);
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not finish applying the command's changes to the project (" + e.getMessage()
          + "); they are kept in " + layer.directory() + " and applied when Waymark next opens this tab", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException(CheckpointException.Kind.INTERRUPTED, "Interrupted before the command's changes were applied; they are kept in "
          + layer.directory() + " and applied when Waymark next opens this tab", e);
    }
  }

  /**
   * The ignore rules a command's changes are recorded under: the project's (the command's own
   * {@code .gitignore} edits are still in its layer), except that a {@code .gitignore} this turn
   * changed before the command counts as it was when the turn started: what the agent ignored
   * along the way cannot hide what its commands then change.
   */
  private IgnoreRules rulesAtTurnStart(TabRecords turn) throws IOException {
    // each directory's file read once for the whole apply, not once per changed file below it
    IgnoreRules rules = IgnoreRules.recording().extending();
    for (FileChange change : turn.changes()) {
      String path = change.path();
      if (path.equals(".gitignore") || path.endsWith("/.gitignore")) {
        String dir = path.equals(".gitignore") ? "" : path.substring(0, path.length() - "/.gitignore".length());
        rules = rules.with(dir, change.before().exists() ? repo.read(change.before().blob()) : null);
      }
    }
    return rules;
  }

  /**
   * What the project held as the command started, for the paths changed meanwhile. The version of
   * a path a Waymark tool (of any tab or process) wrote while it ran: what the first such write
   * replaced, as the {@link WriteLog} says. Else (an editor's save leaves no such trace) what the
   * latest scan saw, if the file notifications vouched for it as the command started
   * ({@code startedFrom}); else there is no base, and a change of both sides clashes. A path absent
   * now was there if such a write replaced it, if the scan vouched for it, if the user's git index
   * tracks it, or if this turn recorded it as there.
   */
  private ApplyBases bases(TabRecords turn, Layer layer, Optional<ProjectView.Vouch> startedFrom,
      UsersRepository users) {
    if (layer.bases().isPresent()) {
      return layer.bases().get(); // a landed view: what the project held when the view first changed each path
    }
    long since = layer.started().toMillis() - 1;
    List<WriteLog.Write> writes = writeLog.since(since);
    return new ApplyBases() {
      private NavigableSet<String> tracked;

      @Override
      public Optional<byte[]> base(String path) {
        Optional<WriteLog.Write> write = firstWrite(path);
        if (write.isPresent()) {
          String prior = write.get().priorBlob();
          try {
            return Optional.of(prior == null ? new byte[0] : repo.read(ObjectId.fromString(prior)));
          } catch (IOException | RuntimeException e) {
            return Optional.empty();
          }
        }
        Optional<byte[]> vouched = startedFrom.flatMap(v -> view.heldThen(v, path));
        return vouched.isPresent() ? vouched : staged(path);
      }

      /**
       * With no scan to vouch (a process that runs only sandboxed commands takes none), the version the user's
       * git index holds: what a clean file held as the command started. If the file was not clean, both sides
       * carry the same difference from it, which merges; a region they disagree on clashes, keeping the user's
       * file. Either way the user's version is this checkpoint's "before", so nothing is lost.
       */
      private Optional<byte[]> staged(String path) {
        try {
          return users.get().flatMap(git -> {
            var entry = git.index().tracked().get(path);
            return entry == null || entry.kind() == FileKind.SYMLINK ? Optional.empty()
                : git.readBlob(entry.blob(), entry.size(), () -> git.normalisesLineEndings(path));
          });
        } catch (RuntimeException unreadable) {
          return Optional.empty();
        }
      }

      @Override
      public boolean existed(String path) {
        Optional<WriteLog.Write> write = firstWrite(path);
        if (write.isPresent()) {
          return write.get().priorBlob() != null;
        }
        for (FileChange change : turn.changes()) {
          if (change.path().equals(path)) {
            return change.after().exists();
          }
        }
        if (startedFrom.filter(vouch -> view.sawThen(vouch, path)).isPresent()) {
          return true;
        }
        if (tracked == null) {
          tracked = users.get().map(git -> git.trackedPaths()).orElseGet(TreeSet::new);
        }
        return tracked.contains(path);
      }

      private Optional<WriteLog.Write> firstWrite(String path) {
        return writes.stream().filter(w -> w.path().equals(path) && w.prior() != null).findFirst();
      }
    };
  }

  /** Why {@code path} (now {@code entry}) is left out of the records: a directory above it, or itself; null when recorded. */
  private Exclusion exclusion(Layer layer, String path, FileStat entry,
      IgnoreRules rules, Map<String, Optional<Exclusion>> directories) throws IOException {
    for (int slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) {
      String dir = path.substring(0, slash);
      Optional<Exclusion> known = directories.get(dir);
      if (known == null) {
        Path onDisk = layer.project().resolve(dir);
        FileStat stat = FileStat.read(Files.isDirectory(onDisk, LinkOption.NOFOLLOW_LINKS) ? onDisk : layer.upper().resolve(dir));
        known = Optional.ofNullable(view.exclusionOf(dir, stat, rules));
        directories.put(dir, known);
      }
      if (known.isPresent()) {
        return known.get();
      }
    }
    return view.exclusionOf(path, entry, rules);
  }

  /** Bytes read before a batch of blobs is stored: bounds the memory an apply of many files takes. */
  private static final long BATCH_BYTES = 64L << 20;

  private static FileVersion version(FileState state, Iterator<ObjectId> ids) {
    return state.exists() ? new FileVersion(state.kind(), ids.next(), state.mode()) : FileVersion.ABSENT;
  }

  /**
   * The project's apply step, once no other tab or Waymark applies a layer to it (waiting as long
   * as that takes): a Waymark of another {@code WAYMARK_HOME} on the same project included.
   */
  private CommandSlot.Held applySlot(Path project) throws InterruptedException {
    CommandSlot slot = new CommandSlot(ProjectLocks.apply(project).orElse(root.resolve("apply.lock")));
    for (;;) {
      Optional<CommandSlot.Held> held = slot.take(APPLY_POLL_MILLIS);
      if (held.isPresent()) {
        return held.get();
      }
    }
  }

  private static final long APPLY_POLL_MILLIS = 1_000;

  private static long sizeOf(FileStat stat) {
    return stat.kind() == FileKind.SYMLINK ? 0 : stat.size();
  }

  /** Keeps the command's versions of the clashing paths under a {@code rescued} tag; returns it. */
  private String rescue(TabRecords turn, List<LayerApply.Clash> clashes) throws IOException {
    Map<String, FileVersion> versions = new LinkedHashMap<>();
    for (LayerApply.Clash clash : clashes) {
      versions.put(clash.path(), clash.commandVersion() != null && Files.exists(clash.commandVersion(), LinkOption.NOFOLLOW_LINKS)
          ? repo.insert(List.of(FileState.read(clash.commandVersion()))).get(0) : FileVersion.ABSENT);
    }
    return turn.rescueCommandVersions(versions);
  }

  /** The user's repository, opened at the first question an apply asks of it and closed with the apply: once, not per path. */
  private static final class UsersRepository implements AutoCloseable {
    private final Path project;
    private Optional<UserGitRepository> opened;

    UsersRepository(Path project) {
      this.project = project;
    }

    Optional<UserGitRepository> get() {
      if (opened == null) {
        opened = UserGitRepository.find(project);
      }
      return opened;
    }

    @Override
    public void close() {
      if (opened != null) {
        opened.ifPresent(UserGitRepository::close);
      }
    }
  }
}
