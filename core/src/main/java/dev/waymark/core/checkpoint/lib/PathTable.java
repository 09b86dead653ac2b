package dev.waymark.core.checkpoint.lib;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;

/**
 * An immutable map from project path to what a scan saw there, cheap to derive with a few
 * changes: a full map at the bottom, shared by every table derived from it, and one small map of
 * changes above it. A scan after a command costs what the command touched, not the project's
 * size; when the changes grow past a share of the whole, a derived table is flattened again.
 */
public final class PathTable<V> {
  private static final Object REMOVED = new Object();
  private static final PathTable<?> EMPTY = new PathTable<>(Map.of(), Map.of(), 0);

  private final Map<String, V> base;
  /** Changes over {@link #base}: a value, or {@link #REMOVED}. */
  private final Map<String, Object> changes;
  private final int size;

  private PathTable(Map<String, V> base, Map<String, Object> changes, int size) {
    this.base = base;
    this.changes = changes;
    this.size = size;
  }

  @SuppressWarnings("unchecked")
  public static <V> PathTable<V> empty() {
    return (PathTable<V>) EMPTY;
  }

  /** A table of {@code all}, which the caller must not change afterwards. */
  public static <V> PathTable<V> of(Map<String, V> all) {
    return new PathTable<>(all, Map.of(), all.size());
  }

  @SuppressWarnings("unchecked")
  public V get(String path) {
    Object changed = changes.get(path);
    if (changed != null) {
      return changed == REMOVED ? null : (V) changed;
    }
    return base.get(path);
  }

  public boolean containsKey(String path) {
    return get(path) != null;
  }

  public int size() {
    return size;
  }

  /** Every entry, in no order: a walk over the whole table. */
  @SuppressWarnings("unchecked")
  public void forEach(BiConsumer<String, V> action) {
    base.forEach((path, value) -> {
      if (!changes.containsKey(path)) {
        action.accept(path, value);
      }
    });
    changes.forEach((path, value) -> {
      if (value != REMOVED) {
        action.accept(path, (V) value);
      }
    });
  }

  /** The paths, as a set the caller must not change. */
  public Set<String> keySet() {
    if (changes.isEmpty()) {
      return Collections.unmodifiableSet(base.keySet());
    }
    Set<String> keys = new HashSet<>(size * 2);
    forEach((path, value) -> keys.add(path));
    return keys;
  }

  /**
   * The paths whose entries may differ between this table and {@code other}: both tables' changes
   * when they were derived from one base (without a walk over either), else empty.
   */
  public Optional<Set<String>> pathsDifferingFrom(PathTable<V> other) {
    if (base != other.base) {
      return Optional.empty();
    }
    Set<String> paths = new HashSet<>(changes.keySet());
    paths.addAll(other.changes.keySet());
    return Optional.of(paths);
  }

  /** A plain copy of the whole table. */
  private Map<String, V> toMap() {
    Map<String, V> copy = new HashMap<>(size * 2);
    forEach(copy::put);
    return copy;
  }

  /** This table with {@code put} set and {@code removed} taken out (a path in both ends up set). */
  public PathTable<V> with(Map<String, V> put, Collection<String> removed) {
    if (put.isEmpty() && removed.isEmpty()) {
      return this;
    }
    Map<String, Object> next = new HashMap<>(changes);
    int newSize = size;
    for (String path : removed) {
      if (!put.containsKey(path) && containsKey(path)) {
        newSize--;
        next.put(path, REMOVED);
      }
    }
    for (Map.Entry<String, V> e : put.entrySet()) {
      if (!containsKey(e.getKey())) {
        newSize++;
      }
      next.put(e.getKey(), e.getValue());
    }
    if (next.size() > 1024 + base.size() / 8) {
      PathTable<V> derived = new PathTable<>(base, next, newSize);
      return of(derived.toMap()); // flattened: lookups stay one step, copies stay small
    }
    return new PathTable<>(base, next, newSize);
  }

  /** Changes to make to this table; {@link Editor#build} makes the new one. */
  public Editor<V> edit() {
    return new Editor<>(this);
  }

  /** A table being changed: reads see the changes made so far. */
  public static final class Editor<V> {
    private final PathTable<V> from;
    private final Map<String, V> put = new HashMap<>();
    private final Set<String> removed = new HashSet<>();

    private Editor(PathTable<V> from) {
      this.from = from;
    }

    public V get(String path) {
      V value = put.get(path);
      if (value != null) {
        return value;
      }
      return removed.contains(path) ? null : from.get(path);
    }

    public boolean containsKey(String path) {
      return get(path) != null;
    }

    public void put(String path, V value) {
      put.put(path, value);
      removed.remove(path);
    }

    /** Takes {@code path} out; returns what it held. */
    public V remove(String path) {
      V was = get(path);
      put.remove(path);
      if (was != null) {
        removed.add(path);
      }
      return was;
    }

    /** Takes out every path below the directory {@code dir} (a walk over the whole table); returns them. */
    public List<String> removeBelow(String dir) {
      String below = dir + "/";
      Set<String> gone = new HashSet<>();
      from.forEach((path, value) -> {
        if (path.startsWith(below)) {
          gone.add(path);
        }
      });
      for (String path : put.keySet()) {
        if (path.startsWith(below)) {
          gone.add(path);
        }
      }
      List<String> removedNow = new ArrayList<>();
      for (String path : gone) {
        if (remove(path) != null) {
          removedNow.add(path);
        }
      }
      return removedNow;
    }

    public PathTable<V> build() {
      return from.with(put, removed);
    }
  }
}
