package dev.waymark.core.checkpoint;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A tab's checkpoints copied under a new tab id, to fork a session another Waymark holds: each
 * commit is copied with its manifest naming the new tab (a tag is trusted only when its manifest
 * names it) and tagged as the new tab's; the files are the same objects, and nothing of the
 * original tab, its tags or its lock is touched, so its holder goes on undisturbed.
 */
public final class TabCopies {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TabCopies() {}

  /** A tab id no tab of the store has. */
  public static String newTabId(ShadowStore store) {
    while (true) {
      byte[] random = new byte[6];
      new SecureRandom().nextBytes(random);
      String id = "t" + HexFormat.of().formatHex(random);
      if (!store.tabIds().contains(id)) {
        return id;
      }
    }
  }

  /** Whether {@code tabId} is an isolated tab (its files a view of its own, which a copy would not have). */
  public static boolean isolated(ShadowStore store, String tabId) {
    return Files.isDirectory(store.parts().viewDirectory(tabId));
  }

  /**
   * Copies the commits {@code tags} name (a tag's name below the tab's prefix: {@code 3},
   * {@code saved/NAME}) from tab {@code from} to tab {@code to}, tagging each copy so; answers
   * each original commit's copy. A commit the store no longer holds is left out (the fork reports
   * the checkpoint lost, as its original would).
   */
  public static Map<ObjectId, ObjectId> copy(ShadowStore store, String from, String to, Map<String, ObjectId> tags) {
    ShadowRepository repo = store.parts().repo();
    Map<ObjectId, ObjectId> copies = new HashMap<>();
    try {
      for (var tag : tags.entrySet()) {
        if (repo.has(tag.getValue())) {
          repo.setRef(TagNames.tabPrefix(to) + tag.getKey(), copy(repo, from, to, tag.getValue(), copies));
        }
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not copy tab " + from + "'s checkpoints: "
          + e.getMessage(), e);
    }
    return copies;
  }

  /** The copy of {@code commit}, its parents of the same tab copied first (a checkpoint's commit follows its parent's). */
  private static ObjectId copy(ShadowRepository repo, String from, String to, ObjectId commit, Map<ObjectId, ObjectId> copies)
      throws IOException {
    ObjectId done = copies.get(commit);
    if (done != null) {
      return done;
    }
    ShadowRepository.Manifested original = repo.manifested(commit);
    if (original.manifest() == null) {
      return commit; // not a checkpoint's commit: shared as it is
    }
    ObjectNode manifest = (ObjectNode) JSON.readTree(original.manifest());
    if (!from.equals(manifest.path("tab").asText())) {
      return commit; // another tab's: its tags name it still
    }
    manifest.put("tab", to);
    List<ObjectId> parents = new ArrayList<>();
    for (ObjectId parent : original.parents()) {
      parents.add(copy(repo, from, to, parent, copies));
    }
    ObjectId copied = repo.copyCommit(commit, JSON.writeValueAsBytes(manifest), parents);
    copies.put(commit, copied);
    return copied;
  }
}
