package dev.waymark.core.checkpoint.project;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.testing.GitCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store keeps hard links to the user's object files while a command may need them, and lets
 * them go once the user's repository has dropped the files and no command is in flight.
 */
class UserObjectLinksTest {
  @TempDir Path temp;
  Path project;
  Path mirror;
  UserObjectLinks links;

  @BeforeEach
  void repository() throws IOException {
    GitCli.requireGit();
    project = Files.createDirectories(temp.resolve("project"));
    GitCli.ok(project, "init", "-q");
    Files.writeString(project.resolve("packed.txt"), "packed\n", UTF_8);
    GitCli.ok(project, "add", "-A");
    GitCli.ok(project, "commit", "-q", "-m", "one");
    GitCli.ok(project, "gc", "-q");
    Files.writeString(project.resolve("loose.txt"), "loose\n", UTF_8);
    GitCli.ok(project, "add", "loose.txt");
    mirror = temp.resolve("store/user-objects");
    links = new UserObjectLinks(project.resolve(".git/objects"), mirror);
  }

  private ObjectId blobOf(String path) {
    return ObjectId.fromString(GitCli.ok(project, "hash-object", path).text().trim());
  }

  private String looseFile(ObjectId id) {
    return id.name().substring(0, 2) + "/" + id.name().substring(2);
  }

  @Test
  void packsAndLooseObjectsAreLinkedNotCopied() throws IOException {
    ObjectId loose = blobOf("loose.txt");

    links.renew(true);

    Path original = project.resolve(".git/objects/" + looseFile(loose));
    assertThat(Files.getAttribute(original, "unix:nlink", LinkOption.NOFOLLOW_LINKS)).isEqualTo(2);
    try (var packs = Files.list(project.resolve(".git/objects/pack"))) {
      for (Path pack : packs.filter(p -> p.toString().endsWith(".pack")).toList()) {
        assertThat(Files.isSameFile(pack, mirror.resolve("objects/pack").resolve(pack.getFileName()))).isTrue();
      }
    }
  }

  @Test
  void whatTheUserDeletedIsStillReadableUntilNoCommandNeedsIt() throws IOException {
    ObjectId packed = blobOf("packed.txt");
    ObjectId loose = blobOf("loose.txt");
    links.renew(true);

    deleteTree(project.resolve(".git"));

    assertThat(links.readBlob(packed, 7, () -> false)).map(b -> new String(b, UTF_8)).contains("packed\n");
    assertThat(links.readBlob(loose, 6, () -> false)).map(b -> new String(b, UTF_8)).contains("loose\n");
    assertThat(links.readBlob(loose, 99, () -> false)).as("a blob of another size is not the file's").isEmpty();

    links.renew(false); // a command of some process is in flight: kept
    assertThat(links.readBlob(loose, 6, () -> false)).isPresent();

    links.renew(true);
    assertThat(links.readBlob(packed, 7, () -> false)).isEmpty();
    try (var left = Files.walk(mirror.resolve("objects"))) {
      assertThat(left.filter(Files::isRegularFile).toList()).as("every link dropped").isEmpty();
    }
  }

  @Test
  void anotherProcessFindsTheLinksAnEarlierOneMadeAndDropsThemWhenTheirFilesAreGone() throws IOException {
    links.renew(true);
    List<Path> made;
    try (var files = Files.walk(mirror.resolve("objects"))) {
      made = files.filter(Files::isRegularFile).toList();
    }
    assertThat(made).isNotEmpty();
    deleteTree(project.resolve(".git"));

    new UserObjectLinks(project.resolve(".git/objects"), mirror).renew(true);

    assertThat(made).noneMatch(Files::exists);
  }

  private static void deleteTree(Path root) throws IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
