package dev.waymark.core.checkpoint;

import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.store.ShadowBundle;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.jgit.lib.Ref;

/**
 * Tabs' tags in one git bundle, to carry them to another clone of the project: every checkpoint
 * and save tag of the tabs with all they reach, plus files the caller adds (a session). The real
 * {@code git} reads the bundle ({@code git bundle verify}, {@code git fetch}).
 */
public final class TabBundles {
  private TabBundles() {}

  /** Writes the tags of {@code tabIds} and {@code files} to {@code file}; answers how many tags went in. */
  public static int write(ShadowStore store, Collection<String> tabIds, Map<String, byte[]> files, Path file) {
    List<String> refs = new ArrayList<>();
    for (String tab : tabIds) {
      store.parts().repo().refs(TagNames.tabPrefix(tab)).stream().map(Ref::getName).forEach(refs::add);
    }
    try {
      ShadowBundle.write(store.parts().repo(), refs, files, file);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not write " + file + ": " + e.getMessage(), e);
    }
    return refs.size();
  }

  /** The files {@link #write} put in {@code file}; a file that is not such a bundle is a clear error. */
  public static Map<String, byte[]> files(ShadowStore store, Path file) {
    boolean ours;
    try {
      ours = ShadowBundle.refs(store.parts().repo(), file).containsKey(ShadowBundle.FILES_REF);
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.LOST, file + " cannot be read as a Waymark bundle (" + e.getMessage() + ").", e);
    }
    if (!ours) {
      throw new CheckpointException(CheckpointException.Kind.REFUSED, file + " is a git bundle, but not one `waymark sessions export` wrote.");
    }
    try {
      return ShadowBundle.files(store.parts().repo(), file);
    } catch (IOException | CheckpointException e) {
      // a bundle whose pack is cut or damaged fails as its objects are fetched (on the store's writer)
      throw new CheckpointException(CheckpointException.Kind.LOST, file + " cannot be read as a Waymark bundle (" + rootMessage(e) + ").", e);
    }
  }

  /** The tabs whose tags {@code file} holds. */
  public static Set<String> tabs(ShadowStore store, Path file) {
    Set<String> tabs = new TreeSet<>();
    try {
      for (String ref : ShadowBundle.refs(store.parts().repo(), file).keySet()) {
        if (ref.startsWith(TagNames.ROOT)) {
          tabs.add(ref.substring(TagNames.ROOT.length()).split("/", 2)[0]);
        }
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.LOST, file + " cannot be read as a Waymark bundle (" + e.getMessage() + ").", e);
    }
    return tabs;
  }

  /**
   * Brings the tags of {@code tabIds} from {@code file} into the store; a tag that exists here with
   * another commit is refused. Answers how many tags the bundle held for them.
   */
  public static int fetch(ShadowStore store, Path file, Collection<String> tabIds) {
    try {
      List<String> refs = ShadowBundle.refs(store.parts().repo(), file).keySet().stream()
          .filter(ref -> tabIds.stream().anyMatch(tab -> ref.startsWith(TagNames.tabPrefix(tab)))).toList();
      ShadowBundle.fetchRefs(store.parts().repo(), file, refs);
      return refs.size();
    } catch (IOException | CheckpointException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not bring the tags in from " + file + ": " + rootMessage(e), e);
    }
  }

  private static String rootMessage(Exception e) {
    Throwable cause = e;
    while (cause instanceof CheckpointException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause.getMessage();
  }
}
