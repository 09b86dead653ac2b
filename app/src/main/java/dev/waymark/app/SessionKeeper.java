package dev.waymark.app;

import dev.waymark.core.agent.SessionSettings;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.agent.Toolset;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.model.ChatModel;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.tool.ApprovalMode;
import dev.waymark.core.tool.ToolSettings;
import dev.waymark.core.tool.Tools;
import dev.waymark.tui.SessionControl;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The session of one run: which file it is, how its tabs are made and brought back, and saving.
 * The interface, {@code waymark exec} and the headless commands all go through it.
 */
final class SessionKeeper implements SessionControl {
  private static final DateTimeFormatter LIST_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

  private final ShadowStore store;
  private final SessionStore files;
  private final String provider;
  private final Supplier<ChatModel> models;
  private final SessionSettings settings;
  private final Tools tools;
  private String id;
  private String name;
  private Instant created;

  SessionKeeper(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings) {
    this(store, provider, models, settings, ToolSettings.DEFAULTS);
  }

  SessionKeeper(ShadowStore store, String provider, Supplier<ChatModel> models, SessionSettings settings,
      ToolSettings toolSettings) {
    this.tools = Tools.standard(toolSettings);
    this.store = store;
    this.files = SessionStore.of(store);
    this.provider = provider;
    this.models = models;
    this.settings = settings;
    this.id = files.newId();
    this.created = files.now();
  }

  String id() {
    return id;
  }

  SessionStore files() {
    return files;
  }

  /** A new tab with a new checkpoint tree. */
  TabSession newTab() {
    return new TabSession(store.newTab(), store.projectDirectory(), models.get(), Toolset.of(tools.all()), settings);
  }

  /** Makes {@code file} the current session and brings back its tabs; {@code notes} gets what could not be. */
  Loaded open(SessionFile file) {
    return open(file, false);
  }

  /** {@link #open(SessionFile)}; {@code readOnly} takes no tab's lock, for commands that only look. */
  Loaded open(SessionFile file, boolean readOnly) {
    List<LoadedTab> tabs = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    for (SessionFile.Tab tab : file.tabs()) {
      tabs.add(new LoadedTab(restore(tab, notes, readOnly), tab.input(), tab.isClosed()));
    }
    id = file.id();
    name = file.name();
    created = file.created() == null ? files.now() : file.created();
    return new Loaded(label(), tabs, notes, file.activeTab());
  }

  /** Brings back one tab of a session file. */
  TabSession restore(SessionFile.Tab tab, List<String> notes) {
    return restore(tab, notes, false);
  }

  private TabSession restore(SessionFile.Tab tab, List<String> notes, boolean readOnly) {
    ShadowStore.RestoredTab restored = readOnly ? store.readTab(SessionCodec.snapshot(tab))
        : store.restoreTab(SessionCodec.snapshot(tab));
    if (!restored.recreatedTags().isEmpty()) {
      notes.add("Recreated " + restored.recreatedTags().size() + " missing tag(s) of tab " + tab.tabId() + " from their commits.");
    }
    if (!restored.lostCheckpoints().isEmpty()) {
      notes.add("Checkpoint(s) " + restored.lostCheckpoints() + " of tab " + tab.tabId()
          + " could not be brought back: their commits are gone from the store. Their conversation is loaded; "
          + "a restore that would cross them is refused and changes nothing.");
    }
    if (restored.reconciled()) {
      notes.add("Tab " + tab.tabId() + " was restored to #" + restored.tree().filesAt() + " after the session was last saved"
          + " (Waymark was stopped in between): it is brought back there, as its files are.");
    }
    if (!restored.recovered().isEmpty()) {
      notes.add("Checkpoint(s) " + restored.recovered().stream().map(n -> "#" + n).toList() + " of tab " + tab.tabId()
          + " were recorded after the session was last saved (Waymark was stopped in the middle): their file changes "
          + "are back and can be undone; what was said after that save is not.");
    }
    for (String shell : restored.shellRecovered()) {
      notes.add("Tab " + tab.tabId() + ": " + shell + "; it can be undone.");
    }
    CheckpointTree tree = restored.tree();
    return new TabSession(tree, store.projectDirectory(), models.get(), Toolset.of(tools.all()), settings,
        SessionCodec.memory(tab));
  }

  /**
   * The tab a headless command takes without --tab: the session's active tab if it is open, else
   * its first open tab, else (every tab closed) its first tab; empty for a session without tabs.
   */
  static java.util.Optional<String> defaultTab(SessionFile file) {
    List<SessionFile.Tab> open = file.tabs().stream().filter(t -> !t.isClosed()).toList();
    return open.stream().filter(t -> t.tabId().equals(file.activeTab())).findFirst()
        .or(() -> open.stream().findFirst())
        .or(() -> file.tabs().stream().findFirst())
        .map(SessionFile.Tab::tabId);
  }

  String label() {
    return name == null ? id : name + " (" + id + ")";
  }

  @Override
  public String save(List<OpenTab> tabs, String newName) {
    if (newName != null) {
      if (!newName.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}")) {
        throw new SessionException("Not a session name: \"" + newName + "\" (letters, digits, '.', '-' and '_').");
      }
      name = newName;
    }
    List<SessionFile.Tab> records = new ArrayList<>();
    boolean empty = newName == null;
    String activeTab = null;
    for (OpenTab tab : tabs) {
      SessionFile.Tab record = SessionCodec.capture(tab.session(), new SessionCodec.TabInfo(tab.title(), provider, tab.input()))
          .withClosed(tab.closed());
      empty &= record.checkpoints().size() <= 1 && (tab.input() == null || tab.input().isBlank());
      records.add(record);
      if (!tab.closed() && (activeTab == null || tab.active())) {
        activeTab = record.tabId(); // the tab shown, else the first open one: never a closed tab
      }
    }
    if (empty && !java.nio.file.Files.exists(files.file(id))) {
      return "Nothing to save yet: no tab has a checkpoint."; // a session that was only opened is not kept
    }
    files.save(new SessionFile(SessionStore.SCHEMA_VERSION, id, name, store.projectDirectory().toString(), created,
        files.now(), activeTab, records));
    return "Saved session " + label() + " to " + files.file(id) + ".";
  }

  @Override
  public List<String> list() {
    List<String> lines = new ArrayList<>();
    for (SessionStore.Listing l : files.list()) {
      lines.add(describe(l, id));
    }
    if (lines.isEmpty()) {
      lines.add("No saved sessions in " + files.directory() + ".");
    }
    return lines;
  }

  static String describe(SessionStore.Listing l, String current) {
    String when = l.updated() == null ? "?" : LIST_TIME.format(l.updated());
    if (l.problem().isPresent()) {
      return "  " + l.id() + "  " + when + "  cannot be loaded: " + l.problem().get();
    }
    return (l.id().equals(current) ? "▸ " : "  ") + l.id() + "  " + when + "  " + l.tabs() + (l.tabs() == 1 ? " tab, " : " tabs, ")
        + l.checkpoints() + (l.checkpoints() == 1 ? " checkpoint" : " checkpoints") + (l.name() == null ? "" : "  \"" + l.name() + "\"");
  }

  @Override
  public Loaded load(String idOrName) {
    SessionFile file = files.load(idOrName);
    if (file.id().equals(id)) {
      throw new SessionException("Session " + label() + " is the one open.");
    }
    return open(file);
  }

  @Override
  public String delete(String idOrName) {
    SessionFile file = files.load(idOrName);
    if (file.id().equals(id)) {
      throw new SessionException("Session " + label() + " is the one open; load another first.");
    }
    files.delete(file.id(), store);
    return "Deleted session " + file.id() + " and the tags of its " + file.tabs().size() + " tab(s); "
        + "the store reclaims their space at its next garbage collection.";
  }

  static SessionSettings settings(String model, ApprovalMode approval, boolean interactive) {
    return new SessionSettings(model, approval, interactive, null);
  }
}
