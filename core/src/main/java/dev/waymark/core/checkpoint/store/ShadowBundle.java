package dev.waymark.core.checkpoint.store;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.BundleWriter;
import org.eclipse.jgit.transport.FetchConnection;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.TagOpt;
import org.eclipse.jgit.transport.TrackingRefUpdate;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.TransportBundleStream;
import org.eclipse.jgit.transport.URIish;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Git bundles of the shadow repository: refs with every object they reach in one file that the
 * real {@code git} reads ({@code git bundle verify}, {@code git fetch FILE}), plus a commit under
 * {@link #FILES_REF} whose tree carries whatever else the file must hold (a session, its base).
 */
public final class ShadowBundle {
  /** The ref of the commit that carries the bundle's own files. */
  public static final String FILES_REF = "refs/waymark-share/files";

  private ShadowBundle() {}

  /** Writes {@code refs} (full names) and {@code files} (name → bytes) to {@code file}, whole or not at all. */
  public static void write(ShadowRepository shadow, Collection<String> refs, Map<String, byte[]> files, Path file)
      throws IOException {
    Repository repo = shadow.jgit();
    ObjectId carrier = shadow.write(() -> {
      try (ObjectInserter inserter = repo.newObjectInserter()) {
        TreeFormatter tree = new TreeFormatter();
        for (var entry : new TreeMap<>(files).entrySet()) {
          tree.append(entry.getKey(), FileMode.REGULAR_FILE, inserter.insert(Constants.OBJ_BLOB, entry.getValue()));
        }
        CommitBuilder commit = new CommitBuilder();
        commit.setTreeId(inserter.insert(tree));
        PersonIdent waymark = new PersonIdent("Waymark", "waymark@localhost");
        commit.setAuthor(waymark);
        commit.setCommitter(waymark);
        commit.setMessage("Waymark: what this bundle carries besides its tags\n");
        ObjectId id = inserter.insert(commit);
        inserter.flush();
        return id;
      }
    });
    BundleWriter writer = new BundleWriter(repo);
    for (String name : refs) {
      Ref ref = repo.exactRef(name);
      if (ref == null) {
        throw new IOException("the shadow repository has no " + name);
      }
      writer.include(name, ref.getObjectId());
    }
    writer.include(FILES_REF, carrier);
    Path temp = file.resolveSibling(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
    try {
      // it carries the conversation, as a session file does: readable by its owner only, as session files are
      Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException notPosix) {
      Files.createFile(temp);
    }
    try (OutputStream out = Files.newOutputStream(temp)) {
      writer.writeBundle(NullProgressMonitor.INSTANCE, out);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The refs {@code file} holds, by name; a file that is not a git bundle is an {@link IOException}. */
  public static Map<String, ObjectId> refs(ShadowRepository shadow, Path file) throws IOException {
    try (Transport transport = open(shadow, file); FetchConnection connection = transport.openFetch()) {
      Map<String, ObjectId> refs = new TreeMap<>();
      for (Ref ref : connection.getRefs()) {
        refs.put(ref.getName(), ref.getObjectId());
      }
      return refs;
    }
  }

  /** The files carried by {@code file}'s {@link #FILES_REF}, fetched without keeping a ref. */
  public static Map<String, byte[]> files(ShadowRepository shadow, Path file) throws IOException {
    String temp = "refs/waymark-import/" + UUID.randomUUID();
    fetch(shadow, file, List.of(new RefSpec("+" + FILES_REF + ":" + temp)));
    Repository repo = shadow.jgit();
    try (RevWalk walk = new RevWalk(repo); TreeWalk tree = new TreeWalk(repo)) {
      tree.addTree(walk.parseCommit(repo.exactRef(temp).getObjectId()).getTree());
      Map<String, byte[]> files = new TreeMap<>();
      while (tree.next()) {
        files.put(tree.getPathString(), shadow.read(tree.getObjectId(0)));
      }
      return files;
    } finally {
      shadow.write(() -> {
        RefUpdate delete = repo.updateRef(temp);
        delete.setForceUpdate(true);
        return delete.delete();
      });
    }
  }

  /**
   * Fetches {@code refs} from {@code file} into the shadow repository under the same names; a ref
   * that exists with another commit is refused (an {@link IOException} naming it), one that exists
   * with the same commit is left as it is.
   */
  public static void fetchRefs(ShadowRepository shadow, Path file, Collection<String> refs) throws IOException {
    List<RefSpec> specs = new ArrayList<>();
    refs.forEach(name -> specs.add(new RefSpec(name + ":" + name)));
    FetchResult result = fetch(shadow, file, specs);
    for (TrackingRefUpdate update : result.getTrackingRefUpdates()) {
      RefUpdate.Result how = update.getResult();
      if (how != RefUpdate.Result.NEW && how != RefUpdate.Result.NO_CHANGE && how != RefUpdate.Result.FAST_FORWARD) {
        throw new IOException(update.getLocalName() + " exists here with another commit (" + how + ")");
      }
    }
  }

  private static FetchResult fetch(ShadowRepository shadow, Path file, List<RefSpec> specs) throws IOException {
    return shadow.write(() -> {
      try (Transport transport = open(shadow, file)) {
        transport.setTagOpt(TagOpt.NO_TAGS);
        return transport.fetch(NullProgressMonitor.INSTANCE, specs);
      }
    });
  }

  /** A transport reading {@code file} as a bundle: from a stream, so no URI scheme decides what it is. */
  private static Transport open(ShadowRepository shadow, Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + " is not a file");
    }
    try {
      return new TransportBundleStream(shadow.jgit(), new URIish(file.toAbsolutePath().toString()),
          new BufferedInputStream(Files.newInputStream(file)));
    } catch (URISyntaxException e) {
      throw new IOException(e.getMessage(), e);
    }
  }
}
