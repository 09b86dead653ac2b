package dev.waymark.core.checkpoint.store;

import dev.waymark.core.WaymarkHome;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.internal.storage.file.FileRepository;
import org.eclipse.jgit.internal.storage.file.ObjectDirectory;
import org.eclipse.jgit.internal.storage.file.PackInserter;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bare shadow repository of one project, reached only through JGit.
 *
 * <p>Every write (objects, refs, packing) runs on one thread, in order; reads run on the
 * caller's thread with their own reader. Objects are flushed before a ref that names them is
 * written, so a crash leaves at worst unreachable objects.
 */
public final class ShadowRepository implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShadowRepository.class);
  public static final int MERGEABLE_LIMIT = 8 << 20;

  private final Repository repo;
  private final ExecutorService writer;

  private ShadowRepository(Repository repo, String name) {
    this.repo = repo;
    this.writer = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "waymark-shadow-writer-" + name);
      t.setDaemon(true);
      return t;
    });
  }

  public static ShadowRepository openOrCreate(Path gitDir) throws IOException {
    GitIsolation.install();
    boolean fresh = !Files.isDirectory(gitDir.resolve("objects"));
    if (fresh) {
      WaymarkHome.createPrivateDirectories(gitDir);
    }
    FileRepository repo = new FileRepository(gitDir.toFile());
    if (fresh) {
      repo.create(true);
      StoredConfig config = repo.getConfig();
      config.setBoolean(ConfigConstants.CONFIG_CORE_SECTION, null, "logallrefupdates", false);
      config.setBoolean(ConfigConstants.CONFIG_GC_SECTION, null, "autodetach", false);
      config.setString("waymark", null, "purpose", "checkpoint store; safe to inspect with git");
      config.save();
    } else if (!repo.getObjectDatabase().exists()) {
      repo.close();
      throw new CheckpointException(CheckpointException.Kind.LOST, "The shadow repository at " + gitDir + " is damaged: it has no object store.");
    }
    return new ShadowRepository(repo, gitDir.getParent().getFileName().toString());
  }

  public Path directory() {
    return repo.getDirectory().toPath();
  }

  /** Runs {@code work} on the writer thread and waits for it. */
  public <T> T write(Callable<T> work) {
    Future<T> future = writer.submit(work);
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CheckpointException(CheckpointException.Kind.INTERRUPTED, "Interrupted while writing the shadow repository", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CheckpointException) {
        throw (CheckpointException) cause;
      }
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not write the shadow repository: " + cause.getMessage(), cause);
    }
  }

  /** Runs {@code work} on the writer thread later, logging rather than raising a failure. */
  public void writeLater(String what, Runnable work) {
    writer.execute(() -> {
      try {
        work.run();
      } catch (RuntimeException e) {
        LOG.warn("background {} failed", what, e);
      }
    });
  }

  public ObjectId hash(FileState state) {
    byte[] content = state.contentUnsafe();
    return new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB, content);
  }

  public ObjectId hash(Path file, long size) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new ObjectInserter.Formatter().idFor(Constants.OBJ_BLOB, size, in);
    }
  }

  /** Stores each state's bytes as a blob (existing blobs are not written again). */
  public List<FileVersion> insert(List<FileState> states) {
    return write(() -> {
      List<FileVersion> versions = new ArrayList<>(states.size());
      try (ObjectInserter inserter = repo.newObjectInserter()) {
        for (FileState state : states) {
          versions.add(state.exists()
              ? new FileVersion(state.kind(), inserter.insert(Constants.OBJ_BLOB, state.contentUnsafe()), state.mode())
              : FileVersion.ABSENT);
        }
        inserter.flush();
      }
      return versions;
    });
  }

  /** Below this many objects a batch is written loose: a pack per handful of files would pile up packs. */
  static final int PACK_THRESHOLD = 64;

  /**
   * Stores many blobs at once; a large batch goes into one new pack, not a loose file each, so
   * recording thousands of files costs one write of their compressed bytes.
   */
  public List<ObjectId> insertBlobs(List<byte[]> contents) {
    if (contents.isEmpty()) {
      return List.of();
    }
    return write(() -> {
      List<ObjectId> ids = new ArrayList<>(contents.size());
      try (ObjectInserter inserter = contents.size() >= PACK_THRESHOLD
          ? ((ObjectDirectory) repo.getObjectDatabase()).newPackInserter() : repo.newObjectInserter()) {
        if (inserter instanceof PackInserter) {
          ((PackInserter) inserter).checkExisting(true);
        }
        for (byte[] content : contents) {
          ids.add(inserter.insert(Constants.OBJ_BLOB, content));
        }
        inserter.flush();
      }
      return ids;
    });
  }

  /** Stores a file's bytes by streaming them; used for content too big to hold twice. */
  public ObjectId insertFile(Path file, long size) {
    return write(() -> {
      try (ObjectInserter inserter = repo.newObjectInserter(); InputStream in = Files.newInputStream(file)) {
        ObjectId id = inserter.insert(Constants.OBJ_BLOB, size, in);
        inserter.flush();
        return id;
      }
    });
  }

  /** JGit's repository, for the store's helpers that need more than these methods ({@link ShadowBundle}). */
  Repository jgit() {
    return repo;
  }

  public boolean has(ObjectId id) {
    try (ObjectReader reader = repo.newObjectReader()) {
      return reader.has(id);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public byte[] read(ObjectId blob) throws IOException {
    try (ObjectReader reader = repo.newObjectReader()) {
      ObjectLoader loader = reader.open(blob, Constants.OBJ_BLOB);
      if (!loader.isLarge()) {
        return loader.getCachedBytes();
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(loader.getSize(), Integer.MAX_VALUE - 8));
      loader.copyTo(out);
      return out.toByteArray();
    } catch (MissingObjectException e) {
      throw new CheckpointException(CheckpointException.Kind.LOST, "The shadow repository no longer holds blob " + blob.name()
          + " (pruned by retention, or the repository was damaged)", e);
    }
  }

  /** A blob's size, and its bytes unless it is bigger than the limit it was read with (then null). */
  public record Limited(long size, byte[] bytes) {}

  /** Reads a blob with one lookup, its bytes only up to {@code limit} (a diff's: a huge file is not loaded). */
  public Limited readUpTo(ObjectId blob, long limit) throws IOException {
    try (ObjectReader reader = repo.newObjectReader()) {
      ObjectLoader loader = reader.open(blob, Constants.OBJ_BLOB);
      long size = loader.getSize();
      return new Limited(size, size > limit ? null : loader.getCachedBytes(Integer.MAX_VALUE - 8));
    } catch (MissingObjectException e) {
      throw new CheckpointException(CheckpointException.Kind.LOST, "The shadow repository no longer holds blob " + blob.name()
          + " (pruned by retention, or the repository was damaged)", e);
    }
  }

  /** The bytes at {@code path} in a commit's tree, or null when the tree has no such file. */
  public byte[] readAt(ObjectId commit, String path) throws IOException {
    try (RevWalk walk = new RevWalk(repo);
         TreeWalk tree =
             TreeWalk.forPath(repo, path, walk.parseCommit(commit).getTree())) {
      return tree == null ? null : read(tree.getObjectId(0));
    }
  }

  /** The files under {@code folder} in a commit's tree, by their path below it, with the kind git keeps (file, executable, link). */
  public Map<String, FileVersion> filesAt(ObjectId commit, String folder) throws IOException {
    Map<String, FileVersion> files = new TreeMap<>();
    try (RevWalk walk = new RevWalk(repo); TreeWalk tree = new TreeWalk(repo)) {
      tree.addTree(walk.parseCommit(commit).getTree());
      tree.setRecursive(true);
      tree.setFilter(PathFilter.create(folder.replaceAll("/$", "")));
      while (tree.next()) {
        FileMode mode = tree.getFileMode(0);
        FileKind kind = mode == FileMode.SYMLINK ? FileKind.SYMLINK
            : mode == FileMode.EXECUTABLE_FILE ? FileKind.EXECUTABLE
            : FileKind.REGULAR;
        files.put(tree.getPathString().substring(folder.length()), new FileVersion(kind, tree.getObjectId(0)));
      }
    }
    return files;
  }

  /** A commit's message and when it was made. */
  public record CommitInfo(String message, Instant when) {}

  public CommitInfo info(ObjectId commit) throws IOException {
    try (RevWalk walk = new RevWalk(repo)) {
      var parsed = walk.parseCommit(commit);
      return new CommitInfo(parsed.getFullMessage(), parsed.getCommitterIdent().getWhenAsInstant());
    }
  }

  public void copyTo(ObjectId blob, OutputStream out) throws IOException {
    try (ObjectReader reader = repo.newObjectReader()) {
      reader.open(blob, Constants.OBJ_BLOB).copyTo(out);
    }
  }

  public long size(ObjectId blob) throws IOException {
    try (ObjectReader reader = repo.newObjectReader()) {
      return reader.getObjectSize(blob, Constants.OBJ_BLOB);
    }
  }

  /** One entry of a commit's tree: a path and the version stored there. */
  public record TreeEntry(String path, FileVersion version) {}

  /**
   * Writes a commit whose tree holds {@code entries} plus a {@code waymark.json} manifest, then
   * creates {@code tagRef} pointing at it. Fails if the tag exists already.
   */
  public ObjectId commitAndTag(List<TreeEntry> entries, byte[] manifest, List<ObjectId> parents,
      String message, Instant when, String tagRef) {
    return commitAndTag(entries, manifest, parents, message, when, tagRef, null);
  }

  /**
   * As above, but moves {@code tagRef} from {@code replacing} (a running checkpoint's earlier
   * commit); fails if the tag points anywhere else. {@code replacing} null: the tag must be new.
   */
  public ObjectId commitAndTag(List<TreeEntry> entries, byte[] manifest, List<ObjectId> parents,
      String message, Instant when, String tagRef, ObjectId replacing) {
    return write(() -> {
      ObjectId commit;
      try (ObjectInserter inserter = repo.newObjectInserter()) {
        DirCache index = DirCache.newInCore();
        DirCacheBuilder builder = index.builder();
        for (TreeEntry entry : entries) {
          DirCacheEntry e = new DirCacheEntry(entry.path());
          e.setFileMode(entry.version().kind().gitMode());
          e.setObjectId(entry.version().blob());
          builder.add(e);
        }
        DirCacheEntry manifestEntry = new DirCacheEntry("waymark.json");
        manifestEntry.setFileMode(FileMode.REGULAR_FILE);
        manifestEntry.setObjectId(inserter.insert(Constants.OBJ_BLOB, manifest));
        builder.add(manifestEntry);
        builder.finish();

        PersonIdent ident = new PersonIdent("Waymark", "waymark@localhost", when, TimeZone.getDefault().toZoneId());
        CommitBuilder cb = new CommitBuilder();
        cb.setTreeId(index.writeTree(inserter));
        cb.setParentIds(parents);
        cb.setAuthor(ident);
        cb.setCommitter(ident);
        cb.setMessage(message);
        commit = inserter.insert(cb);
        inserter.flush();
      }
      RefUpdate update = repo.updateRef(tagRef);
      update.setNewObjectId(commit);
      update.setExpectedOldObjectId(replacing == null ? ObjectId.zeroId() : replacing);
      update.setForceUpdate(replacing != null); // the new commit does not descend from the running one
      RefUpdate.Result result = update.update();
      if (result != (replacing == null ? RefUpdate.Result.NEW : RefUpdate.Result.FORCED)
          && !(replacing != null && result == RefUpdate.Result.NO_CHANGE)) {
        throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not create tag " + tagRef + " in the shadow repository: " + result);
      }
      return commit;
    });
  }

  /** A commit's parents and the manifest its tree holds (null when it has none). */
  public record Manifested(List<ObjectId> parents, byte[] manifest) {}

  public Manifested manifested(ObjectId commit) throws IOException {
    try (RevWalk walk = new RevWalk(repo)) {
      List<ObjectId> parents = new ArrayList<>();
      for (var parent : walk.parseCommit(commit).getParents()) {
        parents.add(parent.copy());
      }
      return new Manifested(parents, readAt(commit, "waymark.json"));
    }
  }

  /**
   * A copy of {@code commit} (same files, author, time and message) whose {@code waymark.json} is
   * {@code manifest} and whose parents are {@code parents}: a forked tab's checkpoint. No ref moves.
   */
  public ObjectId copyCommit(ObjectId commit, byte[] manifest, List<ObjectId> parents) {
    return write(() -> {
      try (RevWalk walk = new RevWalk(repo); ObjectInserter inserter = repo.newObjectInserter();
          ObjectReader reader = repo.newObjectReader()) {
        var original = walk.parseCommit(commit);
        DirCache index = DirCache.read(reader, original.getTree());
        DirCacheBuilder builder = index.builder();
        for (int i = 0; i < index.getEntryCount(); i++) {
          if (!index.getEntry(i).getPathString().equals("waymark.json")) {
            builder.add(index.getEntry(i));
          }
        }
        DirCacheEntry manifestEntry = new DirCacheEntry("waymark.json");
        manifestEntry.setFileMode(FileMode.REGULAR_FILE);
        manifestEntry.setObjectId(inserter.insert(Constants.OBJ_BLOB, manifest));
        builder.add(manifestEntry);
        builder.finish();
        CommitBuilder cb = new CommitBuilder();
        cb.setTreeId(index.writeTree(inserter));
        cb.setParentIds(parents);
        cb.setAuthor(original.getAuthorIdent());
        cb.setCommitter(original.getCommitterIdent());
        cb.setMessage(original.getFullMessage());
        ObjectId copy = inserter.insert(cb);
        inserter.flush();
        return copy;
      }
    });
  }

  /** Recreates or moves a ref; used to bring back tags from recorded commit ids. */
  public void setRef(String ref, ObjectId commit) {
    write(() -> {
      RefUpdate update = repo.updateRef(ref);
      update.setNewObjectId(commit);
      update.setForceUpdate(true);
      RefUpdate.Result result = update.update();
      switch (result) {
        case NEW:
        case FORCED:
        case NO_CHANGE:
        case FAST_FORWARD:
          return null;
        default:
          throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not write " + ref + ": " + result);
      }
    });
  }

  public List<Ref> refs(String prefix) {
    try {
      return repo.getRefDatabase().getRefsByPrefix(prefix);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not list " + prefix + " in the shadow repository", e);
    }
  }

  public ObjectId resolve(String ref) {
    try {
      Ref found = repo.exactRef(ref);
      return found == null ? null : found.getObjectId();
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read " + ref, e);
    }
  }

  /** Deletes every given ref in one batch. */
  public void deleteRefs(Collection<String> names) {
    if (names.isEmpty()) {
      return;
    }
    write(() -> {
      var batch = repo.getRefDatabase().newBatchUpdate().setAtomic(false).disableRefLog();
      for (String name : names) {
        Ref ref = repo.exactRef(name);
        if (ref != null) {
          batch.addCommand(new ReceiveCommand(ref.getObjectId(), ObjectId.zeroId(), name));
        }
      }
      try (RevWalk walk = new RevWalk(repo)) {
        batch.execute(walk, NullProgressMonitor.INSTANCE);
      }
      for (ReceiveCommand command : batch.getCommands()) {
        if (command.getResult() != ReceiveCommand.Result.OK) {
          throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not delete " + command.getRefName() + ": " + command.getResult());
        }
      }
      return null;
    });
  }

  /** Packs refs and, past git's thresholds, loose objects: run when no checkpoint waits. */
  public void maintain() throws Exception {
    try (Git git = Git.wrap(repo)) {
      git.packRefs().setAll(true).call();
    }
    repo.autoGC(NullProgressMonitor.INSTANCE);
  }

  /** Packs everything now, dropping unreachable objects older than {@code pruneBefore}. */
  public void gc(Instant pruneBefore) {
    write(() -> {
      try (Git git = Git.wrap(repo)) {
        git.gc().setExpire(pruneBefore).call();
      }
      return null;
    });
  }


  @Override
  public void close() {
    writer.shutdown();
    try {
      writer.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    repo.close();
  }
}
