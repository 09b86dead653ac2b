package dev.waymark.core.workspace;

import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Saves a workspace's session file in order on a thread of its own, never blindly over another process's save. */
final class SessionSaver {
  private static final Logger LOG = LoggerFactory.getLogger(SessionSaver.class);

  private final ShadowStore store;
  private final SessionStore files;
  private final String provider;
  private final Supplier<List<WorkspaceTab>> tabs;
  private final Consumer<String> notices;
  private final ExecutorService saver = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "waymark-session-saver");
    t.setDaemon(true);
    return t;
  });
  private final AtomicBoolean changed = new AtomicBoolean();
  private final AtomicBoolean autosaveQueued = new AtomicBoolean();
  private volatile Consumer<SessionFile> saved = file -> { };
  private volatile String shownTab;
  // the session file: guarded by this
  private String id;
  private String name;
  /** Names the session had before a rename: they still open it. */
  private List<String> formerNames = List.of();
  private Instant created;
  private Optional<SessionStore.Stamp> stamp = Optional.empty();
  private Map<String, SessionFile.Tab> lastWritten = Map.of();
  private List<SessionFile.Tab> foreign = List.of();
  /** The tabs' order in the file opened: a save keeps it, whichever of them are held here. */
  private List<String> tabOrder = List.of();

  /**
   * @param tabs the tabs to save, in the session's order
   * @param notices where what went unexpectedly in a save nobody asked for is told
   */
  SessionSaver(ShadowStore store, SessionStore files, String provider, Supplier<List<WorkspaceTab>> tabs,
      Consumer<String> notices) {
    this.store = store;
    this.files = files;
    this.provider = provider;
    this.tabs = tabs;
    this.notices = notices;
    this.id = files.newId();
    this.created = files.now();
  }

  void onSaved(Consumer<SessionFile> saved) {
    this.saved = saved;
  }

  synchronized String id() {
    return id;
  }

  /** The session's name and id, or its id. */
  synchronized String label() {
    return name == null ? id : name + " (" + id + ")";
  }

  /** The tab shown: a session saved now opens on it. */
  void shown(String tabId) {
    shownTab = tabId;
  }

  /**
   * {@code file} becomes the session: {@code leftOut} are its tabs not held here, saved as they
   * are; {@code swapTabs} puts the tabs brought back in place, atomically with the rest for a save.
   * A {@code readOnly} session keeps no stamp.
   */
  synchronized void opened(SessionFile file, boolean readOnly, List<SessionFile.Tab> leftOut, Runnable swapTabs) {
    id = file.id();
    name = file.name();
    formerNames = file.formerNames();
    created = file.created() == null ? files.now() : file.created();
    stamp = readOnly ? Optional.empty() : files.stamp(file.id());
    lastWritten = file.tabs().stream().collect(Collectors.toMap(SessionFile.Tab::tabId, t -> t, (a, b) -> a));
    foreign = List.copyOf(leftOut);
    tabOrder = file.tabs().stream().map(SessionFile.Tab::tabId).toList();
    shownTab = file.activeTab();
    swapTabs.run();
    changed.set(false);
  }

  /** Something the session keeps changed: it is saved soon, on the saver thread. */
  void changed() {
    changed.set(true);
    if (autosaveQueued.getAndSet(true)) {
      return; // the save already queued will see this change
    }
    try {
      saver.execute(() -> {
        autosaveQueued.set(false);
        if (!changed.getAndSet(false)) {
          return;
        }
        try {
          write(null, null, null, false);
        } catch (RuntimeException e) {
          LOG.warn("saving the session failed", e);
          notices.accept("The session could not be saved: " + e.getMessage());
        }
      });
    } catch (RejectedExecutionException closed) {
      autosaveQueued.set(false);
    }
  }

  /**
   * Saves the session with {@code prompt} as {@code tab}'s input, then runs {@code then} on the
   * saver thread; at once when the saver has stopped.
   */
  void saveBeforeTurn(WorkspaceTab tab, String prompt, Runnable then) {
    try {
      saver.execute(() -> {
        try {
          write(null, tab, prompt, false);
        } catch (RuntimeException e) {
          LOG.warn("saving the session before a turn failed", e);
          notices.accept("The session could not be saved: " + e.getMessage());
        } finally {
          then.run();
        }
      });
    } catch (RejectedExecutionException shuttingDown) {
      then.run();
    }
  }

  /**
   * Saves the session now (after any save still queued); a non-null {@code newName} names it.
   * Returns what to tell the user; a {@link SessionException} says why it could not be saved.
   */
  String save(String newName) {
    Future<String> done;
    try {
      done = saver.submit(() -> {
        changed.set(false);
        return write(newName, null, null, true);
      });
    } catch (RejectedExecutionException closed) {
      throw new SessionException(ErrorKind.REFUSED, "The session is closed.");
    }
    try {
      return done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SessionException(ErrorKind.INTERRUPTED, "Interrupted while saving the session.", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }

  /** Stops the saver without saving: what is queued is dropped. */
  void stop() {
    saver.shutdown();
  }

  /** Saves a last time and stops the saver; returns what to tell the user of that save. */
  String saveAndStop() {
    try {
      return save(null);
    } finally {
      saver.shutdown();
    }
  }

  /**
   * Writes the session; {@code drafted}, if any, with {@code draft} as its input. An {@code
   * explicit} save (the user's, or the last one) returns what to tell the user; the others tell
   * only what went unexpectedly, through the notices.
   */
  private synchronized String write(String newName, WorkspaceTab drafted, String draft, boolean explicit) {
    if (newName != null && !newName.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
      throw new SessionException(ErrorKind.REFUSED, "Not a session name: \"" + newName + "\" (letters, digits, '.', '-' and '_').");
    }
    List<SessionFile.Tab> records = new ArrayList<>();
    boolean empty = newName == null;
    String activeTab = null;
    for (WorkspaceTab tab : tabs.get()) {
      String input = tab == drafted ? draft : tab.input();
      SessionFile.Tab captured = SessionCodec.capture(
          SessionCodec.valuesOf(tab.session(), new SessionCodec.TabInfo(tab.title(), provider, input)), tab.transcript().copy()).withClosed(tab.closed()).withSubagentOf(tab.subagentOf());
      SessionFile.Tab record = tab.kept().map(k -> captured.withSettings(k.provider(), k.model(), k.approval()))
          .orElse(captured);
      empty &= record.checkpoints().size() <= 1 && (input == null || input.isBlank());
      records.add(record);
      if (!tab.closed() && (activeTab == null || tab.tabId().equals(shownTab))) {
        activeTab = record.tabId(); // the tab shown, else the first open one: never a closed tab
      }
    }
    if (empty && stamp.isEmpty() && !Files.exists(files.file(id))) {
      return explicit ? "Nothing to save yet: no tab has a checkpoint." : ""; // a session only opened is not kept
    }
    Optional<String> told = reconcile(records, newName);
    String renamedFrom = null;
    if (newName != null) {
      if (name != null && !name.equals(newName)) {
        renamedFrom = name;
        List<String> former = new ArrayList<>(formerNames);
        former.remove(name);
        former.add(name);
        formerNames = List.copyOf(former);
      }
      formerNames = formerNames.stream().filter(n -> !n.equals(newName)).toList();
      name = newName;
    }
    List<SessionFile.Tab> all = new ArrayList<>(records);
    all.addAll(foreign);
    List<String> order = tabOrder;
    all.sort(Comparator.comparingInt(t -> order.contains(t.tabId()) ? order.indexOf(t.tabId()) : Integer.MAX_VALUE));
    if (shownTab != null && foreign.stream().anyMatch(t -> t.tabId().equals(shownTab) && !t.isClosed())) {
      activeTab = shownTab; // shown by the process that holds it: this one acts on another tab and leaves that as it is
    }
    SessionFile file = new SessionFile(SessionStore.SCHEMA_VERSION, id, name, store.projectDirectory().toString(), created,
        files.now(), activeTab, all, formerNames);
    stamp = Optional.of(files.saveStamped(file));
    saved.accept(file);
    lastWritten = records.stream().collect(Collectors.toMap(SessionFile.Tab::tabId, t -> t, (a, b) -> a));
    if (!explicit) {
      told.ifPresent(notices);
      return "";
    }
    String done = "Saved session " + label() + " to " + files.file(id) + "."
        + (renamedFrom == null ? "" : " Its earlier name \"" + renamedFrom + "\" still opens it.");
    return told.map(t -> t + " " + done).orElse(done);
  }

  /**
   * Before writing: when the file is no longer what this workspace last read or wrote, another
   * process saved it. Its tabs that are not held here are kept; if it changed a tab held here too
   * (or deleted or damaged the file), the file is left as it is and this session becomes a new one.
   */
  private Optional<String> reconcile(List<SessionFile.Tab> records, String newName) {
    Optional<SessionStore.Stamp> onDisk = files.stamp(id);
    if (onDisk.equals(stamp)) {
      return Optional.empty();
    }
    SessionFile theirs = null;
    String why;
    if (onDisk.isEmpty()) {
      why = "was deleted by another process";
    } else {
      why = "was changed by another Waymark process since it was opened here";
      try {
        theirs = files.read(files.file(id));
      } catch (SessionException e) {
        why = "was overwritten by another process with a file that cannot be read (" + e.getMessage() + ")";
      }
    }
    Set<String> mine = records.stream().map(SessionFile.Tab::tabId).collect(Collectors.toSet());
    boolean clash = theirs == null;
    List<SessionFile.Tab> others = new ArrayList<>();
    if (theirs != null) {
      Map<String, SessionFile.Tab> theirTabs = new HashMap<>();
      theirs.tabs().forEach(t -> theirTabs.put(t.tabId(), t));
      for (String tabId : mine) {
        SessionFile.Tab before = lastWritten.get(tabId);
        SessionFile.Tab now = theirTabs.get(tabId);
        if (before != null && !before.equals(now)) {
          clash = true; // a tab held here was changed or dropped there
        }
      }
      theirs.tabs().stream().filter(t -> !mine.contains(t.tabId())).forEach(others::add);
    }
    if (!clash) {
      Set<String> known = foreign.stream().map(SessionFile.Tab::tabId).collect(Collectors.toSet());
      List<String> added = others.stream().map(SessionFile.Tab::tabId).filter(t -> !known.contains(t)).toList();
      foreign = List.copyOf(others);
      if (name == null) {
        name = theirs.name();
      }
      return added.isEmpty() ? Optional.empty() : Optional.of("Session " + label() + " was saved by another Waymark "
          + "process too: its " + (added.size() == 1 ? "tab " : "tabs ") + String.join(", ", added) + (added.size() == 1 ? " is" : " are") + " kept in the session beside the ones here.");
    }
    String old = label();
    id = files.newId();
    formerNames = List.of(); // a new session: the names the other one had stay with it
    if (newName != null) {
      name = newName;
    }
    created = files.now();
    stamp = Optional.empty();
    foreign = List.of();
    LOG.warn("session {} {}; saved as {}", old, why, id);
    return Optional.of("Session " + old + " " + why + (theirs == null && onDisk.isEmpty() ? "; " : ": it is left as it is, and ")
        + "the tabs here are saved as a new session " + label() + " (waymark --resume " + id + ").");
  }
}
