package dev.waymark.core.workspace;

import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.bisect.Bisection;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.checkpoint.TreeSnapshot;
import dev.waymark.core.hook.Hooks;
import dev.waymark.core.mcp.McpServers;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.skill.SkillCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Predicate;
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
 * <p>The interface, {@code waymark exec} and the headless commands all drive tabs through it. It
 * keeps the tabs itself; {@link TabReopener} brings a saved tab back, {@link SessionSaver} saves,
 * {@link SessionListing} lists and deletes saved sessions.
 */
public final class Workspace implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Workspace.class);

  /** A session brought back: its tabs in order, what could not be brought back, and the tab shown when it was saved. */
  public record Opened(String label, List<WorkspaceTab> tabs, List<String> notes, Optional<String> activeTab) {}

  private final ShadowStore store;
  private final SessionStore files;
  private final TabFactory factory;
  private final List<WorkspaceTab> tabs = new CopyOnWriteArrayList<>();
  private final TabReopener reopener;
  private final SessionSaver saver;
  private final SessionListing listing;
  /** Where notices go; null until a front end listens, and until then they wait in {@link #unheard}. */
  private Consumer<String> notices;
  /** Notices from before a front end listened (an MCP server that failed at once, as the front end was still being made). */
  private final List<String> unheard = new ArrayList<>();
  private static final int UNHEARD_KEPT = 50;

  public Workspace(ShadowStore store, String provider, TabFactory factory) {
    this.store = store;
    this.files = SessionStore.of(store);
    // every tab, new or reopened, runs the hooks set by then
    this.factory = (tree, memory) -> {
      TabSession session = factory.create(tree, memory);
      session.hooks(hooks);
      session.peers(this::peer);
      session.transcript(this::sessionFile);
      return session;
    };
    this.reopener = new TabReopener(store, provider, this.factory);
    this.saver = new SessionSaver(store, files, provider, this::tabs, this::notice);
    this.listing = new SessionListing(files, store);
  }

  private volatile McpServers mcp;
  private volatile SkillCatalog skills = SkillCatalog.NONE;

  /**
   * For a command that never asks a model ({@code checkpoints}, {@code sessions}): the tabs it opens
   * are saved with the provider, model and mode they were saved with, not its own "none" and safest
   * mode, which the next {@code --continue} would otherwise take.
   */
  public void keepTabSettings() {
    reopener.keepSettings();
  }

  /** The settings the user chose for this run, which tabs opened from now on take over what they saved. */
  public void givenNow(GivenNow given) {
    reopener.givenNow(given);
  }

  /** The MCP servers this process's tabs share (set by whoever started them), for {@code /mcp}. */
  public void mcp(McpServers servers) {
    this.mcp = servers;
    servers.onProblem(this::notice); // whoever listens to the notices then, not now
  }

  private volatile Hooks hooks = Hooks.NONE;

  /** The hooks the tabs run (set by whoever started them), for {@code /hooks}. */
  public void hooks(Hooks configured) {
    this.hooks = configured;
  }

  private Optional<Path> sessionFile() {
    Path file = files.file(id());
    return Files.exists(file) ? Optional.of(file) : Optional.empty();
  }

  public Hooks hooks() {
    return hooks;
  }

  private volatile Bisection.Opener bisection = Bisection.Opener.NONE;

  /** How a bisect of a tab starts (set by whoever started the tabs, who knows the sandbox), for {@code /bisect}. */
  public void bisection(Bisection.Opener opener) {
    this.bisection = opener;
  }

  public Bisection.Opener bisection() {
    return bisection;
  }

  /** The Agent Skills the tabs' model may load (set by whoever started them), for {@code /skills}. */
  public void skills(SkillCatalog catalog) {
    this.skills = catalog;
  }

  public SkillCatalog skills() {
    return skills;
  }

  /** The MCP servers the tabs share; none when nobody set them. */
  public McpServers mcp() {
    McpServers servers = mcp;
    return servers != null ? servers : McpServers.none();
  }

  /** Where what the user should know goes (a failed autosave, a session changed by another process); any thread. */
  public void onNotice(Consumer<String> listener) {
    List<String> earlier;
    synchronized (unheard) {
      notices = listener;
      earlier = List.copyOf(unheard);
      unheard.clear();
    }
    earlier.forEach(listener);
  }

  private void notice(String note) {
    Consumer<String> listener;
    synchronized (unheard) {
      listener = notices;
      if (listener == null) {
        LOG.info("{}", note);
        if (unheard.size() < UNHEARD_KEPT) { // a workspace nobody listens to (a one-off command) keeps only the first
          unheard.add(note);
        }
        return;
      }
    }
    listener.accept(note);
  }

  /** Told each session file as it was written, on the saver thread (for tests, and front ends that show saves). */
  public void onSaved(Consumer<SessionFile> saved) {
    saver.onSaved(saved);
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

  public String id() {
    return saver.id();
  }

  /** The session's name and id, or its id. */
  public String label() {
    return saver.label();
  }

  /** Whether the session has a file yet. */
  public boolean saved() {
    return Files.exists(files.file(id()));
  }

  /**
   * The tree of a tab of this session, by its id or by its place among {@link #tabs()} (1 for the
   * first), as it was last published: for commands that name another tab's checkpoints.
   */
  private Optional<TreeSnapshot> peer(String tab) {
    List<WorkspaceTab> all = tabs();
    Optional<WorkspaceTab> found = all.stream().filter(t -> t.tabId().equals(tab)).findFirst();
    if (found.isEmpty() && tab.matches("\\d{1,4}")) {
      int place = Integer.parseInt(tab);
      found = place >= 1 && place <= all.size() ? Optional.of(all.get(place - 1)) : Optional.empty();
    }
    return found.map(t -> t.session().snapshot().tree());
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
    return newTab(factory, Optional.empty());
  }

  /** A new tab where a subagent of {@code parentTab} works, whose session {@code made} makes; it runs the hooks too. */
  public WorkspaceTab newTab(TabFactory made, String parentTab) {
    return newTab(made, Optional.of(parentTab));
  }

  private WorkspaceTab newTab(TabFactory made, Optional<String> parentTab) {
    TabSession session = made.create(store.newTab(), TabMemory.EMPTY);
    if (made != factory) {
      session.hooks(hooks);
      session.transcript(this::sessionFile);
    }
    WorkspaceTab tab = new WorkspaceTab(session, new Transcript(Map.of()), Optional.empty(), "", "", false);
    parentTab.ifPresent(tab::subagentOf);
    tabs.add(watch(tab));
    opened.forEach(listener -> listener.accept(tab));
    return tab;
  }

  private final List<Consumer<WorkspaceTab>> opened = new CopyOnWriteArrayList<>();

  /** Told each tab opened from now on, on the thread that opened it: a front end shows a subagent's tab so. */
  public void onTabOpened(Consumer<WorkspaceTab> listener) {
    opened.add(listener);
  }

  /** The sandbox isolated tabs' commands run in (empty: none, and isolated tabs are refused). */
  private volatile Optional<Path> isolatingSandbox = Optional.empty();

  /** Sets the sandbox ({@code bwrap}) isolated tabs' commands run in, in their views. */
  public void isolateWith(Optional<Path> bwrap) {
    isolatingSandbox = bwrap;
  }

  /**
   * A new isolated tab where a subagent of {@code parentTab} works, whose session {@code made} makes,
   * in the sandbox set by {@link #isolateWith}; refused, saying why, where there can be no views.
   */
  public WorkspaceTab newIsolatedTab(TabFactory made, String parentTab) {
    TabSession session = made.create(store.newIsolatedTab(isolatingSandbox), TabMemory.EMPTY);
    session.hooks(hooks);
    session.transcript(this::sessionFile);
    WorkspaceTab tab = new WorkspaceTab(session, new Transcript(Map.of()), Optional.empty(), "", "", false);
    tab.subagentOf(parentTab);
    tabs.add(watch(tab));
    opened.forEach(listener -> listener.accept(tab));
    return tab;
  }

  /** {@link #newIsolatedTab(Optional)} in the sandbox set by {@link #isolateWith}. */
  public WorkspaceTab newIsolatedTab() {
    return newIsolatedTab(isolatingSandbox);
  }

  /**
   * A new isolated tab (it works on a view of the project of its own until it lands), the last of
   * the open ones; refused, saying why, where commands run by {@code bwrap} cannot have layers.
   */
  public WorkspaceTab newIsolatedTab(Optional<Path> bwrap) {
    WorkspaceTab tab = new WorkspaceTab(factory.create(store.newIsolatedTab(bwrap), TabMemory.EMPTY),
        new Transcript(Map.of()), Optional.empty(), "", "", false);
    tabs.add(watch(tab));
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
  public Opened open(SessionFile file, boolean readOnly, Predicate<String> held) {
    List<WorkspaceTab> opened = new ArrayList<>();
    List<SessionFile.Tab> leftOut = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try {
      for (SessionFile.Tab record : file.tabs()) {
        if (held.test(record.tabId())) {
          opened.add(watch(reopener.reopen(record, notes, readOnly)));
        } else {
          leftOut.add(record);
        }
      }
    } catch (RuntimeException e) {
      opened.forEach(t -> t.session().close());
      throw e;
    }
    saver.opened(file, readOnly, leftOut, () -> {
      tabs.clear();
      tabs.addAll(opened);
    });
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
      throw new SessionException(ErrorKind.BUSY, "Session " + label() + " is the one open.");
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
    saver.shown(tab.tabId());
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
    saver.saveBeforeTurn(tab, prompt.get(), then);
    return submitted;
  }

  private static Optional<String> promptOf(Command command) {
    if (command instanceof Command.SendPrompt send) {
      return Optional.of(send.text());
    }
    if (command instanceof Command.Branch branch) {
      return Optional.of(branch.text());
    }
    if (command instanceof Command.RunShell shell) {
      return Optional.of("!" + shell.command());
    }
    return Optional.empty();
  }

  /** Saves the session after each change the tab reports. */
  private WorkspaceTab watch(WorkspaceTab tab) {
    tab.session().subscribe(event -> {
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
    saver.changed();
  }

  /**
   * Saves the session now (after any save still queued); a non-null {@code newName} names it.
   * Returns what to tell the user; a {@link SessionException} says why it could not be saved.
   */
  public String save(String newName) {
    return saver.save(newName);
  }

  // ------------------------------------------------------------------------- closing

  /** Closes every tab (a running turn is cancelled and its checkpoint kept) and stops the saver, without saving. */
  @Override
  public void close() {
    tabs.forEach(t -> t.session().close());
    saver.stop();
  }

  /**
   * Closes every tab, waiting for a running turn to keep its checkpoint, then saves the session a
   * last time and stops the saver. Returns what to tell the user of that save.
   */
  public String saveAndClose() {
    tabs.forEach(t -> t.session().close());
    return saver.saveAndStop();
  }

  // ---------------------------------------------------------------- the project's sessions

  /** One line per saved session of this project, newest first; the open one marked. */
  public List<String> list() {
    return listing.list(id());
  }

  /** A line of a session list. */
  public static String describe(SessionStore.Listing l, String current) {
    return SessionListing.describe(l, current);
  }

  /** Deletes a saved session (never the open one) and the tags only it names; returns the deleted session. */
  public SessionFile deleteSession(String idOrName) {
    return listing.deleteSession(idOrName, id(), label());
  }

  /** {@link #deleteSession}, with what to tell the user. */
  public String delete(String idOrName) {
    return SessionListing.deleted(deleteSession(idOrName));
  }

  /**
   * The tab a headless command takes without --tab: the session's active tab if it is open, else
   * its first open tab, else (every tab closed) its first tab; empty for a session without tabs.
   */
  public static Optional<String> defaultTab(SessionFile file) {
    return SessionListing.defaultTab(file);
  }
}
