package dev.waymark.core.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;

/**
 * What a tab's {@code --force} overwrote, and a command's versions that could not be applied: each
 * kept under {@code rescued/<live>-<time>} (files under {@code disk/} or {@code command/}, a
 * manifest naming them all, deleted ones included). Read only: safe from any thread.
 */
public final class RescuedVersions {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] FOLDERS = {"disk/", "command/"};

  /** One rescued tag: its name below {@code rescued/}, when, why (its commit's message) and the paths it holds. */
  public record Rescued(String name, String ref, Instant at, String why, List<String> files) {}

  private final ShadowRepository repo;
  private final String prefix;

  RescuedVersions(ShadowRepository repo, String tabId) {
    this.repo = repo;
    this.prefix = TagNames.tabPrefix(tabId) + "rescued/";
  }

  /** Every rescued tag of the tab, newest first. */
  public List<Rescued> list() {
    List<Rescued> all = new ArrayList<>();
    for (Ref ref : repo.refs(prefix)) {
      all.add(read(ref.getName().substring(prefix.length()), ref.getObjectId()));
    }
    all.sort(Comparator.comparing(Rescued::at).reversed());
    return all;
  }

  /** The rescued tag {@code name} (as {@link #list} names it), or a refusal that lists those there are. */
  public Rescued find(String name) {
    String wanted = name.startsWith("rescued/") ? name.substring("rescued/".length()) : name;
    ObjectId commit = repo.resolve(prefix + wanted);
    if (commit == null) {
      List<String> names = list().stream().map(Rescued::name).toList();
      throw new CheckpointException(CheckpointException.Kind.NOT_FOUND, "No rescued version " + name + " in this tab; "
          + (names.isEmpty() ? "nothing was rescued here." : "there are " + String.join(", ", names) + "."));
    }
    return read(wanted, commit);
  }

  /** Path → the version rescued, {@link FileVersion#ABSENT} for a path that was deleted. */
  Map<String, FileVersion> versions(Rescued rescued) {
    ObjectId commit = repo.resolve(rescued.ref());
    Map<String, FileVersion> versions = new TreeMap<>();
    rescued.files().forEach(path -> versions.put(path, FileVersion.ABSENT));
    try {
      for (String folder : FOLDERS) {
        versions.putAll(repo.filesAt(commit, folder));
      }
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read " + rescued.ref() + ": " + e.getMessage(), e);
    }
    return versions;
  }

  private Rescued read(String name, ObjectId commit) {
    try {
      ShadowRepository.CommitInfo info = repo.info(commit);
      List<String> files = new ArrayList<>();
      byte[] manifest = repo.readAt(commit, "waymark.json");
      if (manifest != null) {
        JsonNode listed = JSON.readTree(manifest).path("files");
        listed.forEach(f -> files.add(f.asText()));
      }
      String why = info.message().strip().replaceFirst("^waymark [^:]*: ", "");
      return new Rescued(name, prefix + name, info.when(), why, List.copyOf(files));
    } catch (IOException e) {
      throw new CheckpointException(CheckpointException.Kind.STORE_IO, "Could not read " + prefix + name + ": " + e.getMessage(), e);
    }
  }
}
