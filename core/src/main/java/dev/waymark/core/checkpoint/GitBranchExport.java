package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Writes a path of a tab's checkpoints as commits on a new branch of the user's own repository:
 * the only code of Waymark that writes there. It adds objects and one branch ref, nothing else:
 * the trees are built in memory from HEAD's, so HEAD, the index and the work tree stay as they
 * are. Each commit is HEAD's tree with the files the tab changed as the checkpoint holds them.
 */
public final class GitBranchExport {
  /**
   * What was written: the branch, the commit it starts from, its commits oldest first, what it
   * replaced, the checkpoints that made no commit, and the files left out because git ignores them.
   */
  public record Result(String branch, Optional<ObjectId> base, List<Made> commits, Optional<ObjectId> replaced,
      List<Integer> skipped, List<String> ignored) {}

  /** One commit written: the checkpoints it holds, its subject and how many files it changed. */
  public record Made(ObjectId id, List<Integer> checkpoints, String subject, int files) {}

  private final ShadowRepository shadow;
  private final Path project;

  GitBranchExport(ShadowRepository shadow, Path project) {
    this.shadow = shadow;
    this.project = project;
  }

  /**
   * Exports the path from {@code from} (exclusive, as {@code git log A..B}) to {@code to} of one tab.
   * When the files the tab changed stood differently at {@code from} than in HEAD (the user's own
   * uncommitted edits, or turns before {@code from}), a first commit brings them to {@code from}.
   * Checkpoints that changed no file make no commit.
   *
   * @param prompts the prompt of each checkpoint, for its message
   */
  public Result export(CheckpointAt from, CheckpointAt to, IntFunction<String> prompts, String branch, boolean squash,
      boolean force) {
    List<Checkpoint> path = path(from, to);
    String ref = Constants.R_HEADS + branch;
    if (branch.isEmpty() || branch.startsWith("-") || !Repository.isValidRefName(ref)) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "Not a valid branch name: \"" + branch + "\" (see git check-ref-format).");
    }
    try (Repository repo = openUserRepository()) {
      Ref existing = repo.exactRef(ref);
      if (existing != null && !force) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, "The branch " + branch + " exists already (at "
            + existing.getObjectId().abbreviate(7).name() + "); choose another name, or --force to replace it.");
      }
      if (existing != null && ref.equals(repo.getFullBranch())) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, "The branch " + branch + " is checked out: replacing it would move your HEAD; "
            + "choose another name.");
      }
      Optional<Path> elsewhere = existing == null ? Optional.empty() : WorkTrees.usingBranch(repo, ref);
      if (elsewhere.isPresent()) {
        throw new CheckpointException(CheckpointException.Kind.REFUSED, "The branch " + branch + " is checked out (or being rebased "
            + "or bisected) in the work tree " + elsewhere.get() + ": replacing it would move that work tree's HEAD; choose another name.");
      }
      String prefix = prefix(repo);
      ObjectId head = repo.resolve(Constants.HEAD + "^{commit}");
      try (ObjectInserter inserter = repo.newObjectInserter(); ObjectReader reader = repo.newObjectReader();
          RevWalk walk = new RevWalk(reader)) {
        DirCache tree = DirCache.newInCore();
        if (head != null) {
          DirCacheBuilder builder = tree.builder();
          builder.addTree(new byte[0], DirCacheEntry.STAGE_0, reader, walk.parseCommit(head).getTree());
          builder.finish();
        }
        Writer writer = new Writer(repo, inserter, tree, prefix, new GitIgnores(repo));
        List<Made> made = new ArrayList<>();
        List<Integer> skipped = new ArrayList<>();
        ObjectId parent = head;
        int startFiles = writer.apply(from.versions());
        if (startFiles > 0 && !squash) {
          String subject = "Waymark: the project as checkpoint #" + from.number() + " holds it";
          parent = writer.commit(parent, subject + "\n\nWaymark-Checkpoint: " + from.tabId() + " #" + from.number() + "\n",
              from.checkpoint().created());
          made.add(new Made(parent, List.of(from.number()), subject, startFiles));
        }
        int squashed = startFiles;
        List<Integer> squashedNumbers = new ArrayList<>();
        StringBuilder body = new StringBuilder();
        for (Checkpoint c : path) {
          int files = writer.apply(afters(c));
          String prompt = prompts.apply(c.number()).strip();
          if (files == 0) {
            skipped.add(c.number());
            continue;
          }
          if (squash) {
            squashed += files;
            squashedNumbers.add(c.number());
            body.append("#").append(c.number()).append(' ').append(firstLine(prompt, c.number())).append('\n');
            continue;
          }
          String message = (prompt.isEmpty() ? "Waymark checkpoint #" + c.number() : prompt) + "\n\nWaymark-Checkpoint: "
              + c.number() + " of tab " + to.tabId() + "\n";
          parent = writer.commit(parent, message, c.created());
          made.add(new Made(parent, List.of(c.number()), firstLine(prompt, c.number()), files));
        }
        if (squash && squashed > 0) {
          String subject = squashedNumbers.size() == 1 && startFiles == 0 ? firstLine(prompts.apply(squashedNumbers.get(0)).strip(),
              squashedNumbers.get(0)) : squashedSubject(from.number(), startFiles > 0, squashedNumbers);
          parent = writer.commit(parent, subject + "\n\n" + body + "\nWaymark-Checkpoints: #" + from.number() + "..#"
              + to.number() + " of tab " + to.tabId() + "\n", to.checkpoint().created());
          made.add(new Made(parent, List.copyOf(squashedNumbers), subject, writer.changedSince(head, walk)));
        }
        if (made.isEmpty()) {
          throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "Nothing to export: from #" + from.number() + " to #" + to.number()
              + " no file changed from what HEAD holds; no branch was written.");
        }
        inserter.flush();
        RefUpdate update = repo.updateRef(ref);
        update.setNewObjectId(parent);
        update.setExpectedOldObjectId(existing == null ? ObjectId.zeroId() : existing.getObjectId());
        update.setForceUpdate(force);
        update.setRefLogMessage("waymark: export of checkpoints #" + from.number() + "..#" + to.number(), false);
        RefUpdate.Result result = update.update(walk);
        if (!List.of(RefUpdate.Result.NEW, RefUpdate.Result.FORCED, RefUpdate.Result.FAST_FORWARD).contains(result)) {
          throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not write the branch " + branch + " (" + result + "); nothing else changed.");
        }
        return new Result(branch, Optional.ofNullable(head), made,
            Optional.ofNullable(existing).map(Ref::getObjectId), skipped, List.copyOf(writer.ignored));
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not export to the branch " + branch + ": " + e.getMessage(), e);
    }
  }

  /** The checkpoints after {@code from} up to {@code to}, oldest first; refused unless {@code from} is on the way to {@code to}. */
  static List<Checkpoint> path(CheckpointAt from, CheckpointAt to) {
    if (!from.tabId().equals(to.tabId())) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "An export follows one tab's checkpoints; " + from.tabId() + " and " + to.tabId()
          + " are two tabs.");
    }
    Map<Integer, Checkpoint> all = to.byNumber();
    List<Checkpoint> path = new ArrayList<>();
    Checkpoint c = all.get(to.number());
    while (c != null && c.number() != from.number()) {
      path.add(c);
      c = all.get(c.parent());
    }
    if (c == null) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, "#" + from.number() + " is not on the way to #" + to.number() + ": an export takes "
          + "a path A..B with #A before #B on one branch (checkpoints list shows the branches).");
    }
    if (path.isEmpty()) {
      throw new CheckpointException(CheckpointException.Kind.NOTHING_TO_DO, "Nothing to export: #" + from.number() + ".." + "#" + to.number()
          + " holds no checkpoint (A..B exports those after #A up to #B).");
    }
    Collections.reverse(path);
    return path;
  }

  private static Map<String, FileVersion> afters(Checkpoint c) {
    Map<String, FileVersion> afters = new TreeMap<>();
    for (FileChange change : c.changes()) {
      afters.put(change.path(), change.after());
    }
    return afters;
  }

  /** Names what the commit holds: A..B leaves A out as git's does, but for the project as A holds it when that differs. */
  private static String squashedSubject(int from, boolean fromsState, List<Integer> squashed) {
    String checkpoints = squashed.isEmpty() ? "" : squashed.size() == 1 ? "checkpoint #" + squashed.get(0)
        : "checkpoints #" + squashed.get(0) + ".." + "#" + squashed.get(squashed.size() - 1);
    String state = fromsState ? "the project as #" + from + " holds it" : "";
    return "Waymark: " + state + (fromsState && !checkpoints.isEmpty() ? ", then " : "") + checkpoints;
  }

  private static String firstLine(String prompt, int number) {
    String line = prompt.lines().findFirst().orElse("").strip();
    return line.isEmpty() ? "Waymark checkpoint #" + number : line;
  }

  private Repository openUserRepository() throws IOException {
    FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(project.toFile());
    if (builder.getGitDir() == null) {
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "The project " + project + " is not in a git repository, so there is no branch to "
          + "export to: run `git init` (and commit) first.");
    }
    Repository repo = builder.setMustExist(true).build();
    if (repo.isBare()) {
      repo.close();
      throw new CheckpointException(CheckpointException.Kind.UNSUPPORTED, "The project's repository " + builder.getGitDir() + " is bare; nothing to export to.");
    }
    return repo;
  }

  /** Where the project lies in the repository's work tree: {@code ""}, or {@code sub/dir/}. */
  private String prefix(Repository repo) throws IOException {
    Path top = repo.getWorkTree().toPath().toRealPath();
    Path here = project.toRealPath();
    String relative = top.relativize(here).toString().replace(File.separatorChar, '/');
    return relative.isEmpty() ? "" : relative + "/";
  }

  /** Builds trees in memory from HEAD's and commits them: the user's index file is never read or written. */
  private final class Writer {
    private final Repository repo;
    private final ObjectInserter inserter;
    private final DirCache tree;
    private final String prefix;
    private final GitIgnores ignores;
    /** Files a checkpoint wrote that git ignores and HEAD does not track: build output, a .env, never committed. */
    private final Set<String> ignored = new TreeSet<>();

    Writer(Repository repo, ObjectInserter inserter, DirCache tree, String prefix, GitIgnores ignores) {
      this.repo = repo;
      this.inserter = inserter;
      this.tree = tree;
      this.prefix = prefix;
      this.ignores = ignores;
    }

    /** Sets these paths as the versions say; answers how many entries changed. */
    int apply(Map<String, FileVersion> versions) throws IOException {
      DirCacheEditor editor = tree.editor();
      int changed = 0;
      for (var entry : versions.entrySet()) {
        String path = prefix + entry.getKey();
        FileVersion version = entry.getValue();
        if (("/" + path + "/").contains("/.git/")) {
          continue; // a nested repository's insides are never content
        }
        DirCacheEntry now = tree.getEntry(path);
        if (!version.exists()) {
          if (now != null) {
            editor.add(new DirCacheEditor.DeletePath(path));
            changed++;
          }
          continue;
        }
        if (now == null && ignores.ignored(path)) {
          ignored.add(entry.getKey()); // as `git add` would: a tracked file is never ignored
          continue;
        }
        ObjectId blob = inserter.insert(Constants.OBJ_BLOB, shadow.read(version.blob()));
        FileMode mode = gitMode(version);
        if (now != null && now.getObjectId().equals(blob) && now.getFileMode().equals(mode)) {
          continue;
        }
        editor.add(new DirCacheEditor.PathEdit(path) {
          @Override
          public void apply(DirCacheEntry ent) {
            ent.setFileMode(mode);
            ent.setObjectId(blob);
          }
        });
        changed++;
      }
      editor.finish();
      return changed;
    }

    ObjectId commit(ObjectId parent, String message, Instant when) throws IOException {
      PersonIdent who = new PersonIdent(repo);
      CommitBuilder commit = new CommitBuilder();
      commit.setTreeId(tree.writeTree(inserter));
      if (parent != null) {
        commit.setParentId(parent);
      }
      commit.setAuthor(new PersonIdent(who, when));
      commit.setCommitter(who);
      commit.setMessage(message);
      return inserter.insert(commit);
    }

    /** How many paths differ between HEAD's tree and the one built (for a squashed commit's count). */
    int changedSince(ObjectId head, RevWalk walk) throws IOException {
      ObjectId built = tree.writeTree(inserter);
      try (TreeWalk diff = new TreeWalk(walk.getObjectReader())) {
        diff.setRecursive(true);
        if (head == null) {
          diff.addTree(new EmptyTreeIterator());
        } else {
          RevCommit commit = walk.parseCommit(head);
          diff.addTree(commit.getTree());
        }
        diff.addTree(built);
        diff.setFilter(TreeFilter.ANY_DIFF);
        int n = 0;
        while (diff.next()) {
          n++;
        }
        return n;
      }
    }
  }

  private static FileMode gitMode(FileVersion version) {
    return switch (version.kind()) {
      case EXECUTABLE -> FileMode.EXECUTABLE_FILE;
      case SYMLINK -> FileMode.SYMLINK;
      default -> version.hasMode() && (version.mode() & 0100) != 0 ? FileMode.EXECUTABLE_FILE
          : FileMode.REGULAR_FILE;
    };
  }
}
