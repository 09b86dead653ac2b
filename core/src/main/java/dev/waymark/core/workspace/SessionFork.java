package dev.waymark.core.workspace;

import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TabCopies;
import dev.waymark.core.checkpoint.TagNames;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.eclipse.jgit.lib.ObjectId;

/**
 * A session another Waymark holds open, copied as a new one to work on here: each tab under a new
 * id with its checkpoints (their tags readable, its undo and diffs as they were saved), its
 * conversation, mode and model. The original's file, tabs and tags are not touched, so the
 * Waymark that holds it goes on as if nothing happened.
 */
public final class SessionFork {
  private SessionFork() {}

  /** The new session, saved; each original tab's id in it (isolated ones absent); and what it left out. */
  public record Forked(SessionFile session, Map<String, String> tabIds, List<String> notes) {}

  /** Why {@code file} cannot be opened here now: another process holds one of its tabs; empty when none does. */
  public static Optional<String> openElsewhere(ShadowStore store, SessionFile file) {
    for (SessionFile.Tab tab : file.tabs()) {
      OptionalLong holder = store.heldElsewhere(tab.tabId());
      if (holder.isPresent()) {
        return Optional.of("Session " + label(file) + " is open in another Waymark (process "
            + (holder.getAsLong() < 0 ? "unknown" : holder.getAsLong()) + ", tab " + tab.tabId() + ")");
      }
    }
    return Optional.empty();
  }

  /**
   * Copies {@code original} as it was last saved into a new session of {@code files}, and saves it;
   * refused when every tab of it is isolated, as the fork would be empty.
   */
  public static Forked fork(ShadowStore store, SessionStore files, SessionFile original) {
    List<String> notes = new ArrayList<>();
    Map<String, String> ids = new LinkedHashMap<>();
    List<String> isolated = new ArrayList<>();
    for (SessionFile.Tab tab : original.tabs()) {
      if (TabCopies.isolated(store, tab.tabId())) {
        isolated.add(tab.tabId());
        notes.add("Tab " + tab.tabId() + " is isolated (its files are a view of its own, which a fork does not copy): it "
            + "is not in the fork; land or discard it " + where(store, tab.tabId()) + ".");
      } else {
        ids.put(tab.tabId(), TabCopies.newTabId(store));
      }
    }
    if (!isolated.isEmpty() && ids.isEmpty()) {
      throw new SessionException(ErrorKind.REFUSED, "Session " + label(original) + " was not forked: "
          + (isolated.size() == 1 ? "its only tab, " + isolated.get(0) + ", is isolated" : "every tab of it is isolated")
          + ", and isolated tabs are not forked (their files are a view of their own, which a fork does not copy); land or "
          + "discard the view " + where(store, isolated.get(0)) + ", then fork.");
    }
    List<SessionFile.Tab> tabs = new ArrayList<>();
    for (SessionFile.Tab tab : original.tabs()) {
      if (ids.containsKey(tab.tabId())) {
        tabs.add(copy(store, tab, ids));
      }
    }
    String active = original.activeTab() == null ? null : ids.get(original.activeTab());
    SessionFile forked = new SessionFile(SessionStore.SCHEMA_VERSION, files.newId(), null, original.project(), files.now(),
        files.now(), active, tabs);
    files.save(forked);
    return new Forked(forked, Map.copyOf(ids), notes);
  }

  private static SessionFile.Tab copy(ShadowStore store, SessionFile.Tab tab, Map<String, String> ids) {
    String to = ids.get(tab.tabId());
    Map<String, ObjectId> tags = new HashMap<>();
    for (SessionFile.Checkpoint cp : tab.checkpoints()) {
      if (cp.commit() != null && cp.tag() != null) {
        tags.put(String.valueOf(cp.number()), ObjectId.fromString(cp.commit()));
      }
    }
    tab.saves().forEach((name, commit) -> tags.put("saved/" + name, ObjectId.fromString(commit)));
    Map<ObjectId, ObjectId> copies = TabCopies.copy(store, tab.tabId(), to, tags);
    List<SessionFile.Checkpoint> checkpoints = new ArrayList<>();
    for (SessionFile.Checkpoint cp : tab.checkpoints()) {
      boolean copied = cp.commit() != null && cp.tag() != null && copies.containsKey(ObjectId.fromString(cp.commit()));
      // the fork's parent checkpoints own the fork's copies of their child tabs (a child left out is left out here too)
      List<SessionFile.Child> children = SessionCodec.children(cp).stream().filter(c -> ids.containsKey(c.tab()))
          .map(c -> new SessionFile.Child(ids.get(c.tab()), c.first(), c.last(), c.isolated())).toList();
      checkpoints.add(new SessionFile.Checkpoint(cp.number(), cp.parent(), cp.status(), cp.created(),
          copied ? copies.get(ObjectId.fromString(cp.commit())).name() : cp.commit(),
          copied ? TagNames.tabPrefix(to) + cp.number() : cp.tag(), cp.saved(), cp.changes(), cp.messages(), cp.draft(),
          cp.pending(), cp.transcript(), children));
    }
    Map<String, String> saves = new HashMap<>();
    tab.saves().forEach((name, commit) -> saves.put(name,
        Optional.ofNullable(copies.get(ObjectId.fromString(commit))).map(ObjectId::name).orElse(commit)));
    return new SessionFile.Tab(to, tab.title(), tab.provider(), tab.model(), tab.input(), tab.live(), tab.filesAt(),
        tab.redo(), checkpoints, saves, tab.closed(), tab.approval(),
        tab.subagentOf() == null ? null : ids.getOrDefault(tab.subagentOf(), null));
  }

  /** Where the user can land or discard {@code tab}: in the Waymark holding it, if one does. */
  private static String where(ShadowStore store, String tab) {
    return store.heldElsewhere(tab).isPresent() ? "in the other Waymark that has it open" : "in its session";
  }

  private static String label(SessionFile file) {
    return file.name() == null || file.name().isBlank() ? file.id() : file.name() + " (" + file.id() + ")";
  }
}
