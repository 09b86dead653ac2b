package dev.waymark.core.checkpoint.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.waymark.core.checkpoint.lib.FileKind;
import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stat cache on disk: a base plus a delta of what changed, each part checked and chained. */
class StatCacheTest {
  @TempDir Path temp;

  private static StatCache.Entry entry(int n) {
    FileStat stat = new FileStat(FileKind.REGULAR, false, n, n * 1_000L, n * 1_000L, n, 0100644);
    return new StatCache.Entry(stat, new FileVersion(FileKind.REGULAR, ObjectId.zeroId(), stat.permissionBits()),
        StatCache.Source.SHADOW, 0);
  }

  @Test
  void aSaveAfterAFewChangesAppendsThemAndALoadSeesBaseAndDelta() throws Exception {
    Path file = temp.resolve("stat-cache.bin");
    StatCache cache = StatCache.empty(file);
    for (int i = 0; i < 1_000; i++) {
      cache.put("f" + i, entry(i));
    }
    cache.save();
    long baseSize = Files.size(file);
    cache.put("f1", entry(5_000));
    cache.remove("f2");
    cache.save();

    assertThat(Files.size(file)).as("the base is not rewritten for two changes").isEqualTo(baseSize);
    StatCache loaded = StatCache.load(file);
    assertThat(loaded.size()).isEqualTo(999);
    assertThat(loaded.get("f1")).isEqualTo(entry(5_000));
    assertThat(loaded.get("f2")).isNull();
    assertThat(loaded.generation()).isEqualTo(cache.generation());
  }

  @Test
  void everyPathAndFieldComesBackAsSavedInTheBaseAndInTheDelta() throws Exception {
    Path file = temp.resolve("stat-cache.bin");
    StatCache cache = StatCache.empty(file);
    List<String> paths = List.of("plain/ascii.txt", "ümlaut/straße.txt", "emoji/\uD83D\uDE00.md",
        "nul\u0000byte", "x".repeat(300), "日本語/ファイル.txt");
    ObjectId blob = ObjectId.fromString("0123456789abcdef0123456789abcdef01234567");
    for (int i = 0; i < paths.size(); i++) {
      FileKind kind = FileKind.values()[1 + i % 3];
      int mode = kind == FileKind.REGULAR ? 0100640 : kind == FileKind.EXECUTABLE ? 0100755 : 0120777;
      FileStat stat = new FileStat(kind, false, Long.MAX_VALUE - i, -i, 1L << 40, i, mode);
      cache.put(paths.get(i), new StatCache.Entry(stat, new FileVersion(stat.kind(), blob, stat.permissionBits()),
          StatCache.Source.values()[i % StatCache.Source.values().length], 1_700_000_000_000L + i));
    }
    cache.save();
    cache.put("delta/ü.txt", cache.get("ümlaut/straße.txt"));
    cache.remove("plain/ascii.txt");
    cache.save();

    StatCache loaded = StatCache.load(file);
    assertThat(loaded.entries()).isEqualTo(cache.entries());
    assertThat(loaded.get("delta/ü.txt")).isEqualTo(cache.get("ümlaut/straße.txt"));
  }

  @Test
  void theUsersIndexTheEntriesAgreeWithIsKeptInTheBaseAndInEachDelta() throws Exception {
    Path file = temp.resolve("stat-cache.bin");
    StatCache cache = StatCache.empty(file);
    cache.put("a", entry(1));
    FileStat index = entry(7).stat();
    cache.indexStamp(index);
    cache.save();
    assertThat(StatCache.load(file).indexStamp()).isEqualTo(index);

    cache.indexStamp(FileStat.MISSING); // only a stamp changes: still saved
    assertThat(cache.dirty()).isTrue();
    cache.save();

    assertThat(StatCache.load(file).indexStamp()).isEqualTo(FileStat.MISSING);
    assertThat(StatCache.load(file).get("a")).isEqualTo(entry(1));
  }

  @Test
  void aSaveAfterAnotherProcessWroteTheCacheWritesItWholeRatherThanADeltaThatWouldNotFollow() throws Exception {
    Path file = temp.resolve("stat-cache.bin");
    StatCache mine = StatCache.empty(file);
    mine.put("a", entry(1));
    mine.save();
    StatCache theirs = StatCache.load(file);
    theirs.put("b", entry(2));
    theirs.save();

    mine.put("c", entry(3));
    mine.save();

    StatCache loaded = StatCache.load(file);
    assertThat(loaded.generation()).isEqualTo(mine.generation());
    assertThat(loaded.get("c")).isEqualTo(entry(3));
  }

  @Test
  void aGenerationAJournalNamesIsKeptAsideWhenAnotherProcessReplacesTheCacheAndDroppedOnceNoneDoes() throws Exception {
    Path file = temp.resolve("stat-cache.bin");
    StatCache mine = StatCache.empty(file);
    mine.put("a", entry(1));
    mine.save();
    mine.put("a", entry(2));
    mine.save(); // a delta record
    long named = mine.generation();
    StatCache theirs = StatCache.load(file);
    theirs.clear();
    for (int i = 0; i < 1_000; i++) {
      theirs.put("b" + i, entry(i)); // too many for a delta: the cache is replaced whole
    }
    theirs.save(() -> Set.of(named)); // and a journal still names the generation before

    assertThat(StatCache.loadAt(file, named)).hasValueSatisfying(old -> {
      assertThat(old.get("a")).isEqualTo(entry(2));
      assertThat(old.get("b1")).isNull();
    });
    assertThat(StatCache.loadAt(file, 12345)).isEmpty();

    theirs.put("c", entry(4)); // no journal names the kept generation any more
    theirs.save(Set::of);
    assertThat(StatCache.loadAt(file, named)).isEmpty();
    try (var files = Files.list(temp)) {
      assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.contains(".kept-"));
    }
  }

  @Test
  void aDeltaRecordCutShortIsIgnoredWithEverythingAfterIt() throws Exception {
    Path file = temp.resolve("stat-cache.bin");
    StatCache cache = StatCache.empty(file);
    cache.put("a", entry(1));
    cache.save();
    long base = cache.generation();
    cache.put("a", entry(2));
    cache.save();
    Path delta = temp.resolve("stat-cache.bin.delta");
    Files.write(delta, new byte[] {0, 0, 1, 0, 42}, StandardOpenOption.APPEND); // a torn append

    StatCache loaded = StatCache.load(file);

    assertThat(loaded.get("a")).isEqualTo(entry(2));
    assertThat(loaded.generation()).isNotEqualTo(base).isEqualTo(cache.generation());
  }

  @Test
  void aDeltaThatDoesNotFollowTheBaseIsNotApplied() throws Exception {
    Path file = temp.resolve("stat-cache.bin");
    StatCache cache = StatCache.empty(file);
    cache.put("a", entry(1));
    cache.save();
    cache.put("a", entry(2));
    cache.save();
    byte[] delta = Files.readAllBytes(temp.resolve("stat-cache.bin.delta"));
    StatCache other = StatCache.empty(file); // another process writes a new base
    other.put("a", entry(3));
    other.save();
    Files.write(temp.resolve("stat-cache.bin.delta"), delta);

    assertThat(StatCache.load(file).get("a")).isEqualTo(entry(3));
  }
}
