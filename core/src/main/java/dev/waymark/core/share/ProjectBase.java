package dev.waymark.core.share;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;

/**
 * What a session's checkpoints need of the project's files to restore them: each path any of
 * them touched, as it was when the session was exported (a git blob id, so {@code git
 * hash-object} says the same), and, to say how to get there, the commit and branch the project
 * was on.
 *
 * @param files per path, {@code file:ID}, {@code executable:ID}, {@code link:ID}, {@code directory} or {@code absent}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProjectBase(String project, String head, String branch, Map<String, String> files) {
  public ProjectBase {
    files = files == null ? Map.of() : new TreeMap<>(files);
  }

  /** One path whose state here is not the base's. */
  public record Difference(String path, String base, String here) {
    /** "changed here", "missing here", ... */
    public String describe() {
      if (base.equals("absent")) {
        return path + ": exists here, but not where the session was exported";
      }
      if (here.equals("absent")) {
        return path + ": missing here";
      }
      return path + ": " + (kind(base).equals(kind(here)) ? "content differs" : "a " + kind(base) + " there, a "
          + kind(here) + " here");
    }

    private static String kind(String state) {
      return state.split(":", 2)[0];
    }
  }

  /** The base of {@code project} for {@code paths}. */
  static ProjectBase of(Path project, Collection<String> paths) throws IOException {
    Map<String, String> files = new TreeMap<>();
    for (String path : paths) {
      files.put(path, state(project.resolve(path)));
    }
    Optional<String[]> head = head(project);
    return new ProjectBase(project.toString(), head.map(h -> h[0]).orElse(null), head.map(h -> h[1]).orElse(null), files);
  }

  /** The paths of {@code project} that are not as the base has them. */
  List<Difference> differences(Path project) throws IOException {
    List<Difference> differ = new ArrayList<>();
    for (Map.Entry<String, String> entry : files.entrySet()) {
      String here = state(project.resolve(entry.getKey()));
      if (!here.equals(entry.getValue())) {
        differ.add(new Difference(entry.getKey(), entry.getValue(), here));
      }
    }
    return differ;
  }

  /** The commit {@code project} is on and its branch, if it is in a git repository with a commit. */
  static Optional<String[]> head(Path project) {
    try (Repository repo = new FileRepositoryBuilder().findGitDir(project.toFile()).setMustExist(true).build()) {
      var id = repo.resolve("HEAD");
      return id == null ? Optional.empty() : Optional.of(new String[] {id.name(), repo.getBranch()});
    } catch (IOException | RuntimeException notARepository) {
      return Optional.empty();
    }
  }

  /** A path's state, as its git object would be named. */
  static String state(Path file) throws IOException {
    if (Files.isSymbolicLink(file)) {
      return "link:" + blobId(Files.readSymbolicLink(file).toString().getBytes(StandardCharsets.UTF_8));
    }
    if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
      return "directory";
    }
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      return "absent";
    }
    return (Files.isExecutable(file) ? "executable:" : "file:") + blobId(Files.readAllBytes(file));
  }

  /** {@code git hash-object}'s id of {@code content}. */
  private static String blobId(byte[] content) {
    try {
      MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
      sha1.update(("blob " + content.length + "\0").getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(sha1.digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JVM has SHA-1
    }
  }
}
