package dev.waymark.core.checkpoint.lib;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scan tables: a shared base with a small layer of changes, so a derived table costs what changed. */
class PathTableTest {
  private static PathTable<String> table(int size) {
    Map<String, String> all = new HashMap<>();
    for (int i = 0; i < size; i++) {
      all.put("f" + i, "v" + i);
    }
    return PathTable.of(all);
  }

  @Test
  void twoTablesDerivedFromOneBaseDifferOnlyWhereEitherChanged() {
    PathTable<String> base = table(10_000);
    PathTable<String> before = base.with(Map.of("f1", "changed before"), List.of());
    PathTable<String> after = before.with(Map.of("new", "n"), List.of("f2"));

    assertThat(after.pathsDifferingFrom(before)).hasValueSatisfying(paths ->
        assertThat(paths).containsExactlyInAnyOrder("f1", "f2", "new"));
    assertThat(after.get("f1")).isEqualTo("changed before");
    assertThat(after.containsKey("f2")).isFalse();
    assertThat(after.size()).isEqualTo(10_000);
  }

  @Test
  void tablesOfDifferentBasesSayNothingAndTheCallerComparesThemWhole() {
    assertThat(table(10).pathsDifferingFrom(table(10))).isEmpty();
  }

  @Test
  void aLayerGrownLargeIsFlattenedAndNoLongerSharesItsBase() {
    PathTable<String> base = table(100);
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i < 2_000; i++) {
      many.put("g" + i, "x");
    }
    PathTable<String> flattened = base.with(many, List.of());

    assertThat(flattened.size()).isEqualTo(2_100);
    assertThat(flattened.pathsDifferingFrom(base)).isEmpty();
  }
}
