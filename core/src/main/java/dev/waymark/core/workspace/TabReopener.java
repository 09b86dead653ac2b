package dev.waymark.core.workspace;

import dev.waymark.core.Counted;
import dev.waymark.core.agent.ProtocolViews;
import dev.waymark.core.agent.TabMemory;
import dev.waymark.core.agent.TabSession;
import dev.waymark.core.checkpoint.Checkpoint;
import dev.waymark.core.checkpoint.CheckpointTree;
import dev.waymark.core.checkpoint.RestoredTab;
import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.ToolCallView;
import dev.waymark.core.session.SessionCodec;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.tool.ApprovalMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Brings a saved tab back: its tree, its model and mode, its {@code TabRestored} event, and notes in words. */
final class TabReopener {
  private final ShadowStore store;
  private final String provider;
  private final TabFactory factory;
  private volatile GivenNow givenNow = GivenNow.NOTHING;
  private volatile boolean keepSettings;

  /** @param provider the run's provider: a tab saved under another one keeps the run's model */
  TabReopener(ShadowStore store, String provider, TabFactory factory) {
    this.store = store;
    this.provider = provider;
    this.factory = factory;
  }

  void givenNow(GivenNow given) {
    this.givenNow = given;
  }

  /** Tabs opened from now on keep the provider, model and mode they were saved with (see {@link Workspace#keepTabSettings}). */
  void keepSettings() {
    this.keepSettings = true;
  }

  /**
   * The tab {@code record} saved, its session started; what the user should know is added to
   * {@code notes}. {@code readOnly} takes no lock on the tab.
   */
  WorkspaceTab reopen(SessionFile.Tab record, List<String> notes, boolean readOnly) {
    RestoredTab restored = readOnly ? store.readTab(SessionCodec.snapshot(record))
        : store.restoreTab(SessionCodec.snapshot(record));
    String tabId = record.tabId();
    if (!restored.recreatedTags().isEmpty()) {
      notes.add("Recreated " + Counted.of(restored.recreatedTags().size(), "missing tag") + " of tab " + tabId + " from their commits.");
    }
    if (!restored.lostCheckpoints().isEmpty()) {
      notes.add((restored.lostCheckpoints().size() == 1 ? "Checkpoint " : "Checkpoints ") + restored.lostCheckpoints() + " of tab " + tabId
          + " could not be brought back: their commits are gone from the store. Their conversation is loaded; "
          + "a restore that would cross them is refused and changes nothing.");
    }
    if (restored.reconciled()) {
      notes.add("Tab " + tabId + " was restored to #" + restored.tree().filesAt() + " after the session was last saved"
          + " (Waymark was stopped in between): it is brought back there, as its files are.");
    }
    if (!restored.recovered().isEmpty()) {
      notes.add((restored.recovered().size() == 1 ? "Checkpoint " : "Checkpoints ") + restored.recovered().stream().map(n -> "#" + n).toList() + " of tab " + tabId
          + " were recorded after the session was last saved (Waymark was stopped in the middle): their file changes "
          + "are back and can be undone; what was said after that save is not.");
    }
    for (String shell : restored.shellRecovered()) {
      notes.add("Tab " + tabId + ": " + shell + ".");
    }
    CheckpointTree tree = restored.tree();
    TabMemory memory = SessionCodec.memory(record);
    Map<Integer, List<Event>> history = SessionCodec.history(record);
    Event.TabRestored event = restoredEvent(tabId, tree, memory, history);
    TabSession session = factory.create(tree, memory);
    WorkspaceTab tab;
    if (keepSettings) {
      tab = new WorkspaceTab(session, new Transcript(history), Optional.of(event), record.title(), record.input(),
          record.isClosed(), Optional.of(new WorkspaceTab.Kept(record.provider(), record.model(), record.approval())));
    } else {
      restoreSettings(session, record, notes);
      tab = new WorkspaceTab(session, new Transcript(history), Optional.of(event), record.title(), record.input(),
          record.isClosed());
    }
    if (record.subagentOf() != null) {
      tab.subagentOf(record.subagentOf()); // still marked as its parent's after a reopen
    }
    return tab;
  }

  /** What a front end rebuilds the tab from: its checkpoints with their events, where it is, a call still waiting. */
  private static Event.TabRestored restoredEvent(String tabId, CheckpointTree tree, TabMemory memory,
      Map<Integer, List<Event>> history) {
    List<Event.TabRestored.RestoredCheckpoint> shown = new ArrayList<>();
    for (Checkpoint cp : tree.checkpoints()) {
      if (cp.number() != 0) {
        shown.add(new Event.TabRestored.RestoredCheckpoint(cp.number(), cp.parent(), ProtocolViews.status(cp.status()), cp.created(),
            cp.changedFiles(), history.getOrDefault(cp.number(), List.of())));
      }
    }
    Optional<ToolCallView> waiting = Optional.ofNullable(memory.pending().get(tree.live())).map(ProtocolViews::toolCall);
    return new Event.TabRestored(tabId, shown, tree.live(), tree.livePath(), waiting);
  }

  /**
   * Gives a tab back the model and approval mode it was saved with, unless the user chose them for
   * this run (then the note says what the tab had). The model only under the same provider (another
   * provider would not know it). Yolo comes back only in a run started in yolo: a session file must
   * not be a way around the mode the user started with.
   */
  private void restoreSettings(TabSession session, SessionFile.Tab record, List<String> notes) {
    GivenNow given = givenNow;
    String model = session.settings().model();
    boolean savedModel = record.model() != null && !record.model().isBlank() && provider.equals(record.provider())
        && !record.model().equals(model);
    if (savedModel && given.model()) {
      notes.add("Tab " + record.tabId() + " was on " + record.model() + "; it opens on " + model + ", as --model says.");
    } else if (savedModel) {
      session.submit(new Command.SetModel(record.model()));
    }
    if (record.approval() == null) {
      return; // a session from before modes were per tab: the run's mode
    }
    ApprovalMode now = session.settings().approval();
    ApprovalMode saved;
    try {
      saved = ApprovalMode.parse(record.approval());
    } catch (IllegalArgumentException e) {
      notes.add("Tab " + record.tabId() + " was saved in an unknown mode \"" + record.approval() + "\"; it opens in "
          + now.label() + ".");
      return;
    }
    if (saved == now) {
      return;
    }
    if (given.approval()) {
      notes.add("Tab " + record.tabId() + " was in " + saved.label() + " mode; it opens in " + now.label()
          + ", as --approval says.");
    } else if (saved == ApprovalMode.YOLO) {
      notes.add("Tab " + record.tabId() + " was in yolo mode; it opens in " + now.label() + " (/mode yolo sets it again).");
    } else {
      session.submit(new Command.SetMode(saved.label()));
    }
  }
}
