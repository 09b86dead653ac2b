package dev.waymark.core.workspace;

import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.agent.ProtocolViews;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import java.nio.file.Files;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tabs of one project and the session that keeps them: opens, resumes and closes tabs, and
 * saves the session itself, in order, on its own thread, so a slow disk never stalls a front end.
 * It saves after every change a tab reports (a turn's start and end, a checkpoint made, restored
 * or saved, a tab closed or reopened), and before a turn starts, with its prompt as the tab's
 * input: a turn writes ahead to the store from its first tool call, so a process killed at any
 * moment leaves a session that names the tab (its tags come back) and keeps the prompt.
 *
 * <p>A session file that another process saved since this one read or wrote it (its stamp
 * differs) is never overwritten blindly: when that process only added or changed tabs this one
 * does not hold, they are kept beside this one's; when it changed a tab held here too, or
 * deleted the file, that file is left as it is and this workspace's tabs are saved as a new
 * session, and the front end is told ({@link #onNotice}).
 *
 * <p>The interface, {@code waymark exec} and the headless commands all drive tabs through it.
 */
public final class Workspace implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Workspace.class);
  private static final DateTimeFormatter LIST_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  /** Makes the session of a tab from its tree and what it remembers: the application wires model, tools and settings. */
  public interface TabFactory {
    TabSession create(CheckpointTree tree, TabSession.Memory memory);
  }

  /** A session brought back: its tabs in order, what could not be brought back, and the tab shown when it was saved. */
  public record Opened(String label, List<WorkspaceTab> tabs, List<String> notes, Optional<String> activeTab) {}

  private final ShadowStore store;
  private final SessionStore files;
  private final String provider;
  private final TabFactory factory;
  private final List<WorkspaceTab> tabs = new CopyOnWriteArrayList<>();
  private final ExecutorService saver = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "waymark-session-saver");
    t.setDaemon(true);
    return t;
  });
  private final AtomicBoolean changed = new AtomicBoolean();
  private final AtomicBoolean autosaveQueued = new AtomicBoolean();
  private volatile Consumer<String> notices = note -> LOG.info("{}", note);
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

  public Workspace(ShadowStore store, String provider, TabFactory factory) {
    this.store = store;
    this.files = SessionStore.of(store);
    this.provider = provider;
    this.factory = factory;
    this.id = files.newId();
    this.created = files.now();
  }

  private volatile dev.waymark.core.mcp.McpServers mcp;

  /** The MCP servers this process's tabs share (set by whoever started them), for {@code /mcp}. */
  public void mcp(dev.waymark.core.mcp.McpServers servers) {
    this.mcp = servers;
    servers.onProblem(note -> notices.accept(note)); // whoever listens to the notices then, not now
  }

  /** The MCP servers the tabs share; none when nobody set them. */
  public dev.waymark.core.mcp.McpServers mcp() {
    dev.waymark.core.mcp.McpServers servers = mcp;
    return servers != null ? servers : dev.waymark.core.mcp.McpServers.none();
  }

  /** Where what the user should know goes (a failed autosave, a session changed by another process); any thread. */
  public void onNotice(Consumer<String> notices) {
    this.notices = notices;
  }

  /** Told each session file as it was written, on the saver thread (for tests, and front ends that show saves). */
  public void onSaved(Consumer<SessionFile> saved) {
    this.saved = saved;
  }

  /** How many processes that shell commands left running still run: closing the workspace stops them. */
  public int backgroundProcesses() {
    return store.backgroundProcesses();
  }

  public ShadowStore store() {
    return store;
  }

  public SessionStore files() {
    return files;
  }

  public synchronized String id() {
    return id;
  }

  /** The session's name and id, or its id. */
  public synchronized String label() {
    return name == null ? id : name + " (" + id + ")";
  }

  /** Whether the session has a file yet. */
  public boolean saved() {
    return Files.exists(files.file(id()));
  }

  /** Every tab, open ones first, in the order the session keeps them. */
  public List<WorkspaceTab> tabs() {
    List<WorkspaceTab> ordered = new ArrayList<>(tabs.stream().filter(t -> !t.closed()).toList());
    ordered.addAll(tabs.stream().filter(WorkspaceTab::closed).toList());
    return ordered;
  }

  // ------------------------------------------------------------------------------- tabs

  /** A new tab with a new checkpoint tree, the last of the open ones. */
  public WorkspaceTab newTab() {
    WorkspaceTab tab = attach(factory.create(store.newTab(), TabSession.Memory.EMPTY), Map.of(), Optional.empty(), "", "", false);
    tabs.add(tab);
    return tab;
  }

  /** Makes {@code file} the session and brings back its tabs, replacing any open here (the caller closes those). */
  public Opened open(SessionFile file) {
    return open(file, false);
  }

  /**
   * {@link #open(SessionFile)}; {@code readOnly} takes no tab's lock, for commands that only look
   * (their tabs must not change anything, and such a workspace is not saved).
   */
  public Opened open(SessionFile file, boolean readOnly) {
    return open(file, readOnly, tabId -> true);
  }

  /**
   * {@link #open(SessionFile, boolean)} bringing back only the tabs {@code held} accepts: a headless
   * command acts on one tab, so it locks that one alone and works while another process holds the
   * others. The tabs left out are saved as they are, in their place.
   */
  public Opened open(SessionFile file, boolean readOnly, java.util.function.Predicate<String> held) {
    List<WorkspaceTab> opened = new ArrayList<>();
    List<SessionFile.Tab> leftOut = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try {
      for (SessionFile.Tab record : file.tabs()) {
        if (held.test(record.tabId())) {
          opened.add(restore(record, notes, readOnly));
        } else {
          leftOut.add(record);
        }
      }
    } catch (RuntimeException e) {
      opened.forEach(t -> t.session().close());
      throw e;
    }
    synchronized (this) {
      id = file.id();
      name = file.name();
      formerNames = file.formerNames();
      created = file.created() == null ? files.now() : file.created();
      stamp = readOnly ? Optional.empty() : files.stamp(file.id());
      lastWritten = file.tabs().stream().collect(Collectors.toMap(SessionFile.Tab::tabId, t -> t, (a, b) -> a));
      foreign = List.copyOf(leftOut);
      tabOrder = file.tabs().stream().map(SessionFile.Tab::tabId).toList();
      shownTab = file.activeTab();
      tabs.clear();
      tabs.addAll(opened);
      changed.set(false);
    }
    return new Opened(label(), tabs(), notes, Optional.ofNullable(file.activeTab()));
  }

  /**
   * {@code /session load}: saves the session open now, brings back another in its place and closes
   * the tabs it replaced. Refuses the session that is open.
   */
  public Opened load(String idOrName) {
    save(null);
    SessionFile file = files.load(idOrName);
    if (file.id().equals(id())) {
      throw new SessionException("Session " + label() + " is the one open.");
    }
    List<WorkspaceTab> old = List.copyOf(tabs);
    Opened opened = open(file);
    old.forEach(t -> t.session().close());
    return opened;
  }

  /** The user closed the tab: its turn is interrupted, and it stays in the session (its tags too) to be reopened. */
  public void close(WorkspaceTab tab) {
    tab.closed(true);
    tabs.remove(tab);
    tabs.add(tab);
    changed();
  }

  /** Brings a closed tab back, the last of the open ones. */
  public void reopen(WorkspaceTab tab) {
    tab.closed(false);
    tabs.remove(tab);
    tabs.add(tab);
    changed();
  }

  /** The front end shows this tab: a session saved now opens on it. */
  public void show(WorkspaceTab tab) {
    shownTab = tab.tabId();
  }

  /**
   * Submits commands to a tab. When one of them starts a turn (a prompt, a branch), the session is
   * saved first with its text as the tab's input, then they are submitted, in order. Completes with
   * their submission ids (an {@code Event.Error} names the one that failed) once they are submitted;
   * with none if the tab closed first.
   */
  public CompletableFuture<List<Long>> submit(WorkspaceTab tab, List<Command> commands) {
    Optional<String> prompt = commands.stream().map(Workspace::promptOf).flatMap(Optional::stream).findFirst();
    if (prompt.isEmpty()) {
      return CompletableFuture.completedFuture(commands.stream().map(tab.session()::submit).toList());
    }
    CompletableFuture<List<Long>> submitted = new CompletableFuture<>();
    Runnable then = () -> {
      try {
        submitted.complete(commands.stream().map(tab.session()::submit).toList());
      } catch (RejectedExecutionException e) {
        LOG.warn("tab {} closed before its commands could be submitted", tab.tabId(), e); // quitting
        submitted.complete(List.of());
      }
    };
    try {
      saver.execute(() -> {
        try {
          write(null, tab, prompt.get(), false);
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
    return submitted;
  }

  private static Optional<String> promptOf(Command command) {
    if (command instanceof Command.SendPrompt send) {
      return Optional.of(send.text());
    }
    if (command instanceof Command.Branch branch) {
      return Optional.of(branch.text());
    }
    return Optional.empty();
  }

  private WorkspaceTab restore(SessionFile.Tab record, List<String> notes, boolean readOnly) {
    ShadowStore.RestoredTab restored = readOnly ? store.readTab(SessionCodec.snapshot(record))
        : store.restoreTab(SessionCodec.snapshot(record));
    String tabId = record.tabId();
    if (!restored.recreatedTags().isEmpty()) {
      notes.add("Recreated " + restored.recreatedTags().size() + " missing tag(s) of tab " + tabId + " from their commits.");
    }
    if (!restored.lostCheckpoints().isEmpty()) {
      notes.add("Checkpoint(s) " + restored.lostCheckpoints() + " of tab " + tabId
          + " could not be brought back: their commits are gone from the store. Their conversation is loaded; "
          + "a restore that would cross them is refused and changes nothing.");
    }
    if (restored.reconciled()) {
      notes.add("Tab " + tabId + " was restored to #" + restored.tree().filesAt() + " after the session was last saved"
          + " (Waymark was stopped in between): it is brought back there, as its files are.");
    }
    if (!restored.recovered().isEmpty()) {
      notes.add("Checkpoint(s) " + restored.recovered().stream().map(n -> "#" + n).toList() + " of tab " + tabId
          + " were recorded after the session was last saved (Waymark was stopped in the middle): their file changes "
          + "are back and can be undone; what was said after that save is not.");
    }
    for (String shell : restored.shellRecovered()) {
      notes.add("Tab " + tabId + ": " + shell + ".");
    }
    CheckpointTree tree = restored.tree();
    TabSession.Memory memory = SessionCodec.memory(record);
    Map<Integer, List<Event>> history = SessionCodec.history(record);
    List<Event.TabRestored.RestoredCheckpoint> shown = new ArrayList<>();
    for (Checkpoint cp : tree.checkpoints()) {
      if (cp.number() != 0) {
        shown.add(new Event.TabRestored.RestoredCheckpoint(cp.number(), cp.parent(), ProtocolViews.status(cp.status()), cp.created(),
            cp.changedFiles(), history.getOrDefault(cp.number(), List.of())));
      }
    }
    Optional<ToolCallView> waiting = Optional.ofNullable(memory.pending().get(tree.live())).map(ProtocolViews::toolCall);
    Event.TabRestored event = new Event.TabRestored(tabId, shown, tree.live(), tree.livePath(), waiting);
    TabSession session = factory.create(tree, memory);
    restoreSettings(session, record, notes);
    return attach(session, history, Optional.of(event), record.title(), record.input(), record.isClosed());
  }

  /**
   * Gives a tab back the model and approval mode it was saved with. The model only under the same
   * provider (another provider would not know it). Yolo comes back only in a run started in yolo:
   * a session file must not be a way around the mode the user started with.
   */
  private void restoreSettings(TabSession session, SessionFile.Tab record, List<String> notes) {
    if (record.model() != null && !record.model().isBlank() && provider.equals(record.provider())
        && !record.model().equals(session.settings().model())) {
      session.submit(new Command.SetModel(record.model()));
    }
    if (record.approval() == null) {
      return; // a session from before modes were per tab: the run's mode
    }
    ApprovalMode saved;
    try {
      saved = ApprovalMode.parse(record.approval());
    } catch (IllegalArgumentException e) {
      notes.add("Tab " + record.tabId() + " was saved in an unknown mode \"" + record.approval() + "\"; it opens in "
          + session.settings().approval().label() + ".");
      return;
    }
    ApprovalMode now = session.settings().approval();
    if (saved == ApprovalMode.YOLO && now != ApprovalMode.YOLO) {
      notes.add("Tab " + record.tabId() + " was in yolo mode; it opens in " + now.label() + " (/mode yolo sets it again).");
    } else if (saved != now) {
      session.submit(new Command.SetMode(saved.label()));
    }
  }

  private WorkspaceTab attach(TabSession session, Map<Integer, List<Event>> history, Optional<Event.TabRestored> restored,
      String title, String input, boolean closed) {
    WorkspaceTab tab = new WorkspaceTab(session, new Transcript(history), restored, title, input, closed);
    session.subscribe(event -> {
      if (event instanceof Event.TurnStarted || event instanceof Event.CheckpointCreated
          || event instanceof Event.CheckpointRestored || event instanceof Event.CheckpointSaved
          || event instanceof Event.SaveDeleted
          || event instanceof Event.TurnFinished) {
        changed(); // a turn's start too: its prompt is then saved, and a crash mid-turn leaves a session to continue
      }
    });
    return tab;
  }

  // ----------------------------------------------------------------------------- saving

  /** Something the session keeps changed: it is saved soon, on the saver thread. */
  public void changed() {
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
   * Saves the session now (after any save still queued); a non-null {@code newName} names it.
   * Returns what to tell the user; a {@link SessionException} says why it could not be saved.
   */
  public String save(String newName) {
    Future<String> saved;
    try {
      saved = saver.submit(() -> {
        changed.set(false);
        return write(newName, null, null, true);
      });
    } catch (RejectedExecutionException closed) {
      throw new SessionException("The session is closed.");
    }
    try {
      return saved.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SessionException("Interrupted while saving the session.", e);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
  }

  /**
   * Writes the session; {@code drafted}, if any, with {@code draft} as its input. An {@code
   * explicit} save (the user's, or the last one) returns what to tell the user; the others tell
   * only what went unexpectedly, through the notices.
   */
  private synchronized String write(String newName, WorkspaceTab drafted, String draft, boolean explicit) {
    if (newName != null && !newName.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
      throw new SessionException("Not a session name: \"" + newName + "\" (letters, digits, '.', '-' and '_').");
    }
    List<SessionFile.Tab> records = new ArrayList<>();
    boolean empty = newName == null;
    String activeTab = null;
    for (WorkspaceTab tab : tabs()) {
      String input = tab == drafted ? draft : tab.input();
      SessionFile.Tab record = SessionCodec.capture(tab.session(), new SessionCodec.TabInfo(tab.title(), provider, input),
          tab.transcript().copy()).withClosed(tab.closed());
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
    all.sort(java.util.Comparator.comparingInt(t -> order.contains(t.tabId()) ? order.indexOf(t.tabId()) : Integer.MAX_VALUE));
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
    String saved = "Saved session " + label() + " to " + files.file(id) + "."
        + (renamedFrom == null ? "" : " Its earlier name \"" + renamedFrom + "\" still opens it.");
    return told.map(t -> t + " " + saved).orElse(saved);
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
          + "process too: its tab(s) " + String.join(", ", added) + " are kept in the session beside the ones here.");
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

  // ------------------------------------------------------------------------- closing

  /** Closes every tab (a running turn is cancelled and its checkpoint kept) and stops the saver, without saving. */
  @Override
  public void close() {
    tabs.forEach(t -> t.session().close());
    saver.shutdown();
  }

  /**
   * Closes every tab, waiting for a running turn to keep its checkpoint, then saves the session a
   * last time and stops the saver. Returns what to tell the user of that save.
   */
  public String saveAndClose() {
    tabs.forEach(t -> t.session().close());
    try {
      return save(null);
    } finally {
      saver.shutdown();
    }
  }

  // ---------------------------------------------------------------- the project's sessions

  /** One line per saved session of this project, newest first; the open one marked. */
  public List<String> list() {
    List<String> lines = new ArrayList<>();
    String current = id();
    for (SessionStore.Listing l : files.list()) {
      lines.add(describe(l, current));
    }
    if (lines.isEmpty()) {
      lines.add("No saved sessions in " + files.directory() + ".");
    }
    return lines;
  }

  /** A line of a session list. */
  public static String describe(SessionStore.Listing l, String current) {
    String when = l.updated() == null ? "?" : LIST_TIME.format(l.updated());
    if (l.problem().isPresent()) {
      return "  " + l.id() + "  " + when + "  cannot be loaded: " + l.problem().get();
    }
    return (l.id().equals(current) ? "▸ " : "  ") + l.id() + "  " + when + "  " + l.tabs() + (l.tabs() == 1 ? " tab, " : " tabs, ")
        + l.checkpoints() + (l.checkpoints() == 1 ? " checkpoint" : " checkpoints") + (l.name() == null ? "" : "  \"" + l.name() + "\"");
  }

  /** Deletes a saved session (never the open one) and the tags only it names; returns the deleted session. */
  public SessionFile deleteSession(String idOrName) {
    SessionFile file = files.load(idOrName);
    if (file.id().equals(id())) {
      throw new SessionException("Session " + label() + " is the one open; load another first.");
    }
    return files.delete(file.id(), store);
  }

  /** {@link #deleteSession}, with what to tell the user. */
  public String delete(String idOrName) {
    SessionFile file = deleteSession(idOrName);
    return "Deleted session " + file.id() + " and the tags of its " + file.tabs().size() + " tab(s); "
        + "the store reclaims their space at its next garbage collection.";
  }

  /**
   * The tab a headless command takes without --tab: the session's active tab if it is open, else
   * its first open tab, else (every tab closed) its first tab; empty for a session without tabs.
   */
  public static Optional<String> defaultTab(SessionFile file) {
    List<SessionFile.Tab> open = file.tabs().stream().filter(t -> !t.isClosed()).toList();
    return open.stream().filter(t -> t.tabId().equals(file.activeTab())).findFirst()
        .or(() -> open.stream().findFirst())
        .or(() -> file.tabs().stream().findFirst())
        .map(SessionFile.Tab::tabId);
  }
}
