package dev.waymark.core.checkpoint;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.waymark.core.checkpoint.lib.CheckpointException;
import dev.waymark.core.checkpoint.lib.FileChange;
import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckpointManifestTest {
  private static final String REF = "refs/tags/waymark/tab1/2";
  private static final String BLOB_A = "8d0e41234f24b6da002d962a26c2495ea16a425f";
  private static final String BLOB_B = "2e65efe2a145dda7ee51d1741299f848e5bf752e";

  /** A checkpoint manifest exactly as Waymark 0.x wrote it (format 1): it must load, and be written back byte for byte. */
  static final String WRITTEN_BY_FORMAT_1 = """
      {
        "format" : 1,
        "tab" : "tab1",
        "checkpoint" : 2,
        "parent" : 1,
        "path" : [ 0, 1, 2 ],
        "status" : "running",
        "created" : "2026-11-23T19:00:00.123Z",
        "changes" : [ {
          "path" : "a.txt",
          "before" : {
            "kind" : "regular",
            "blob" : "8d0e41234f24b6da002d962a26c2495ea16a425f",
            "mode" : "0600"
          },
          "after" : {
            "kind" : "absent"
          }
        }, {
          "path" : "bin/run",
          "before" : {
            "kind" : "absent"
          },
          "after" : {
            "kind" : "executable",
            "blob" : "2e65efe2a145dda7ee51d1741299f848e5bf752e",
            "mode" : "0755"
          }
        }, {
          "path" : "ln",
          "before" : {
            "kind" : "regular",
            "blob" : "2e65efe2a145dda7ee51d1741299f848e5bf752e"
          },
          "after" : {
            "kind" : "symlink",
            "blob" : "8d0e41234f24b6da002d962a26c2495ea16a425f"
          }
        } ]
      }
      """;

  static final String SAVE_WRITTEN_BY_FORMAT_1 = """
      {
        "format" : 1,
        "tab" : "tab1",
        "checkpoint" : 3,
        "parent" : 2,
        "path" : [ 0, 2, 3 ],
        "status" : "cancelled",
        "created" : "2026-11-23T19:00:01Z",
        "save" : "release-1",
        "files" : [ {
          "path" : "a.txt",
          "kind" : "regular",
          "blob" : "8d0e41234f24b6da002d962a26c2495ea16a425f",
          "mode" : "0644"
        }, {
          "path" : "gone.txt",
          "kind" : "absent"
        } ]
      }
      """;

  @Test
  void aCheckpointManifestWrittenByFormatOneLoadsAndIsWrittenTheSameWay() {
    CheckpointManifest m = CheckpointManifest.parse(WRITTEN_BY_FORMAT_1.getBytes(UTF_8), REF);
    assertThat(m.tab()).isEqualTo("tab1");
    assertThat(m.checkpoint()).isEqualTo(2);
    assertThat(m.parent()).isEqualTo(1);
    assertThat(m.path()).containsExactly(0, 1, 2);
    assertThat(m.status()).isEqualTo(CheckpointStatus.RUNNING);
    assertThat(m.created()).isEqualTo(Instant.parse("2026-11-23T19:00:00.123Z"));
    assertThat(m.save()).isEmpty();
    assertThat(m.changes()).containsExactly(
        new FileChange("a.txt", new FileVersion(FileKind.REGULAR, ObjectId.fromString(BLOB_A), 0600), FileVersion.ABSENT),
        new FileChange("bin/run", FileVersion.ABSENT, new FileVersion(FileKind.EXECUTABLE, ObjectId.fromString(BLOB_B), 0755)),
        new FileChange("ln", new FileVersion(FileKind.REGULAR, ObjectId.fromString(BLOB_B)),
            new FileVersion(FileKind.SYMLINK, ObjectId.fromString(BLOB_A))));
    assertThat(new String(m.toBytes(), UTF_8)).isEqualTo(WRITTEN_BY_FORMAT_1);
  }

  @Test
  void aSaveManifestWrittenByFormatOneLoadsAndIsWrittenTheSameWay() {
    CheckpointManifest m = CheckpointManifest.parse(SAVE_WRITTEN_BY_FORMAT_1.getBytes(UTF_8), "refs/tags/waymark/tab1/saved/release-1");
    assertThat(m.save()).contains("release-1");
    assertThat(m.checkpoint()).isEqualTo(3);
    assertThat(m.status()).isEqualTo(CheckpointStatus.CANCELLED);
    assertThat(m.files()).isEqualTo(Map.of(
        "a.txt", new FileVersion(FileKind.REGULAR, ObjectId.fromString(BLOB_A), 0644),
        "gone.txt", FileVersion.ABSENT));
    assertThat(new String(m.toBytes(), UTF_8)).isEqualTo(SAVE_WRITTEN_BY_FORMAT_1);
  }

  @Test
  void aTabWhoseTagsHoldFormatOneManifestsLoadsFromTheStore(@TempDir Path temp) throws Exception {
    try (StoreFixture fx = new StoreFixture(temp)) {
      fx.store.repo().commitAndTag(List.of(), WRITTEN_BY_FORMAT_1.getBytes(UTF_8), List.of(), "format 1\n",
          Instant.parse("2026-11-23T19:00:00Z"), REF);
      fx.store.repo().commitAndTag(List.of(), SAVE_WRITTEN_BY_FORMAT_1.replace("\"checkpoint\" : 3", "\"checkpoint\" : 2")
              .getBytes(UTF_8), List.of(), "save\n", Instant.parse("2026-11-23T19:00:01Z"),
          "refs/tags/waymark/tab1/saved/release-1");
      CheckpointTree loaded = fx.store.loadTab("tab1");
      assertThat(loaded.livePath()).containsExactly(0, 1, 2);
      Checkpoint cp = loaded.checkpoint(2);
      assertThat(cp.status()).isEqualTo(CheckpointStatus.CANCELLED); // it was running when Waymark stopped
      assertThat(cp.changes()).extracting(FileChange::path).containsExactly("a.txt", "bin/run", "ln");
      assertThat(cp.savedNames()).containsExactly("release-1");
      assertThat(cp.tag()).contains(REF);
      loaded.release();

      fx.store.repo().commitAndTag(List.of(), WRITTEN_BY_FORMAT_1.replace("\"format\" : 1", "\"format\" : 2")
          .replace("\"checkpoint\" : 2", "\"checkpoint\" : 3").getBytes(UTF_8), List.of(), "format 2\n",
          Instant.parse("2026-11-23T19:00:02Z"), "refs/tags/waymark/tab1/3");
      assertThatThrownBy(() -> fx.store.loadTab("tab1")).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("refs/tags/waymark/tab1/3").hasMessageContaining("format 2");
    }
  }

  @Test
  void aTagWhoseManifestNamesAnotherCheckpointIsRefusedNamingBoth(@TempDir Path temp) throws Exception {
    try (StoreFixture fx = new StoreFixture(temp)) {
      // the manifest of tab1's #2, under the tag of #5 (a store changed by hand, or damaged)
      fx.store.repo().commitAndTag(List.of(), WRITTEN_BY_FORMAT_1.getBytes(UTF_8), List.of(), "moved\n",
          Instant.parse("2026-11-23T19:00:00Z"), "refs/tags/waymark/tab1/5");
      assertThatThrownBy(() -> fx.store.loadTab("tab1")).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("refs/tags/waymark/tab1/5").hasMessageContaining("tab1 #2");

      // another tab's manifest under this tab's tag
      fx.store.repo().commitAndTag(List.of(), WRITTEN_BY_FORMAT_1.replace("\"tab\" : \"tab1\"", "\"tab\" : \"tab9\"")
          .getBytes(UTF_8), List.of(), "moved\n", Instant.parse("2026-11-23T19:00:00Z"), "refs/tags/waymark/tab2/2");
      assertThatThrownBy(() -> fx.store.loadTab("tab2")).isInstanceOf(CheckpointException.class)
          .hasMessageContaining("refs/tags/waymark/tab2/2").hasMessageContaining("tab9 #2");
    }
  }

  @Test
  void aManifestOfAnotherFormatIsRefusedNamingTheFormat() {
    String newer = WRITTEN_BY_FORMAT_1.replace("\"format\" : 1", "\"format\" : 2");
    assertThatThrownBy(() -> CheckpointManifest.parse(newer.getBytes(UTF_8), REF))
        .isInstanceOf(CheckpointException.class)
        .hasMessageContaining(REF).hasMessageContaining("format 2").hasMessageContaining("reads format 1");
    String none = WRITTEN_BY_FORMAT_1.replace("\"format\" : 1,", "");
    assertThatThrownBy(() -> CheckpointManifest.parse(none.getBytes(UTF_8), REF))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("no format number");
  }

  @Test
  void malformedFieldsAreRefusedNamingTheField() {
    Map<String, String> damages = Map.of(
        "\"created\" : \"2026-11-23T19:00:00.123Z\",", "\"created\" is missing",
        "\"created\" : \"2026-11-23T19:00:00.123Z\"", "\"created\" is not a time",
        "\"status\" : \"running\"", "\"status\" is \"sleeping\"",
        "\"checkpoint\" : 2", "\"checkpoint\" is \"2\"",
        "\"path\" : [ 0, 1, 2 ]", "\"path\" holds \"x\"",
        "\"kind\" : \"executable\"", "a file's kind is \"socket\"",
        "\"blob\" : \"2e65efe2a145dda7ee51d1741299f848e5bf752e\",", "is not a blob id",
        "\"mode\" : \"0600\"", "\"mode\" is \"rw\"");
    Map<String, String> replacements = Map.of(
        "\"created\" : \"2026-11-23T19:00:00.123Z\",", "",
        "\"created\" : \"2026-11-23T19:00:00.123Z\"", "\"created\" : \"yesterday\"",
        "\"status\" : \"running\"", "\"status\" : \"sleeping\"",
        "\"checkpoint\" : 2", "\"checkpoint\" : \"2\"",
        "\"path\" : [ 0, 1, 2 ]", "\"path\" : [ 0, \"x\" ]",
        "\"kind\" : \"executable\"", "\"kind\" : \"socket\"",
        "\"blob\" : \"2e65efe2a145dda7ee51d1741299f848e5bf752e\",", "\"blob\" : \"HEAD\",",
        "\"mode\" : \"0600\"", "\"mode\" : \"rw\"");
    for (var damage : damages.entrySet()) {
      String text = WRITTEN_BY_FORMAT_1.replace(damage.getKey(), replacements.get(damage.getKey()));
      assertThat(text).as(damage.getKey()).isNotEqualTo(WRITTEN_BY_FORMAT_1);
      assertThatThrownBy(() -> CheckpointManifest.parse(text.getBytes(UTF_8), REF)).as(damage.getKey())
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("The manifest of " + REF + " (waymark.json) is damaged")
          .hasMessageContaining(damage.getValue());
    }
    assertThatThrownBy(() -> CheckpointManifest.parse("{\"format\" : 1,".getBytes(UTF_8), REF))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("is not JSON");
    String noChanges = WRITTEN_BY_FORMAT_1.substring(0, WRITTEN_BY_FORMAT_1.indexOf(",\n  \"changes\"")) + "\n}\n";
    assertThatThrownBy(() -> CheckpointManifest.parse(noChanges.getBytes(UTF_8), REF))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("\"changes\" is missing");
  }

  /** A manifest may come in a bundle someone else wrote: its paths are checked before a restore can use them (#48 item 1). */
  @Test
  void aPathOutsideTheProjectOrIntoGitIsRefusedAsDamageInOneLine() {
    for (String path : List.of("../../pwned.txt", "/etc/pwned", ".git/hooks/post-checkout", "src/.Git/config", "a//b", "./a",
        "a\n/../b")) {
      String text = WRITTEN_BY_FORMAT_1.replace("\"path\" : \"bin/run\"", "\"path\" : " + JSON_STRING.apply(path));
      assertThat(text).as(path).isNotEqualTo(WRITTEN_BY_FORMAT_1);
      assertThatThrownBy(() -> CheckpointManifest.parse(text.getBytes(UTF_8), REF)).as(path)
          .isInstanceOf(CheckpointException.class)
          .hasMessageContaining("The manifest of " + REF + " (waymark.json) is damaged")
          .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n"));
    }
    String save = SAVE_WRITTEN_BY_FORMAT_1.replaceFirst("\"path\" : \"[^\"]*\"", "\"path\" : \"../x\"");
    assertThat(save).isNotEqualTo(SAVE_WRITTEN_BY_FORMAT_1);
    assertThatThrownBy(() -> CheckpointManifest.parse(save.getBytes(UTF_8), "refs/tags/waymark/tab1/saved/release-1"))
        .isInstanceOf(CheckpointException.class).hasMessageContaining("Not a project-relative file path: \"../x\"");
  }

  private static final Function<String, String> JSON_STRING = s -> {
    try {
      return new ObjectMapper().writeValueAsString(s);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  };

  @Test
  void permissionBitsThatDoNotFitTheKindCountAsNoneRecorded() {
    String text = WRITTEN_BY_FORMAT_1.replace("\"mode\" : \"0600\"", "\"mode\" : \"0755\"");
    CheckpointManifest m = CheckpointManifest.parse(text.getBytes(UTF_8), REF);
    assertThat(m.changes().get(0).before().hasMode()).isFalse();
  }

  @Test
  void whatTheWriterWritesTheReaderReadsBack() {
    List<FileChange> changes = List.of(new FileChange("x/y.txt", FileVersion.ABSENT,
        new FileVersion(FileKind.REGULAR, ObjectId.fromString(BLOB_B), 0640)));
    CheckpointManifest written = CheckpointManifest.ofCheckpoint("t0123456789ab", 7, 3, List.of(0, 3, 7),
        CheckpointStatus.FAILED, Instant.parse("2026-01-02T03:04:05Z"), changes, List.of(), Optional.empty());
    assertThat(CheckpointManifest.parse(written.toBytes(), REF)).isEqualTo(written);
  }

  @Test
  void aParentCheckpointsChildTabsAreValuesOfItsManifest() {
    CheckpointManifest written = CheckpointManifest.ofCheckpoint("t0123456789ab", 1, 0, List.of(0, 1),
        CheckpointStatus.DONE, Instant.parse("2026-01-02T03:04:05Z"), List.of(),
        List.of(new ChildLink("tchild1", 1, 1, false), new ChildLink("tchild2", 1, 2, true)), Optional.empty());
    assertThat(new String(written.toBytes(), UTF_8)).contains("\"children\"", "\"isolated\" : true");
    assertThat(CheckpointManifest.parse(written.toBytes(), REF)).isEqualTo(written);
    assertThat(CheckpointManifest.parse(WRITTEN_BY_FORMAT_1.getBytes(UTF_8), REF).children())
        .as("a manifest from before links has none").isEmpty();
  }
}
