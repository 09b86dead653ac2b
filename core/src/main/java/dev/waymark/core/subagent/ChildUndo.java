package dev.waymark.core.subagent;

import dev.waymark.core.agent.TabSession;
import dev.waymark.core.model.ChatMessage;
import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import dev.waymark.core.protocol.RestoreOutcome;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Undo belongs to the parent's turn: when a parent tab's live path leaves a checkpoint whose turn ran
 * subagents (undo, goto, a branch from before it), each of their tabs goes back to where it was before the
 * subagent's first checkpoint; when the path comes back to it (redo), each goes to the subagent's last
 * checkpoint again. The subagent tabs move by the protocol's own {@code GoTo}, so each shows its checkpoints
 * undone or redone, and the user can still undo a subagent's steps one by one in its tab.
 */
public final class ChildUndo {
  private final Supplier<Workspace> workspace;

  public ChildUndo(Supplier<Workspace> workspace) {
    this.workspace = workspace;
  }

  /** Follows {@code parent}'s restores from now on. */
  public void watch(TabSession parent) {
    parent.subscribe(event -> {
      if (event instanceof Event.CheckpointRestored restored && restored.result().applied()) {
        follow(parent, restored.result());
      }
    });
  }

  private void follow(TabSession parent, RestoreOutcome result) {
    List<Integer> before = pathTo(parent, result.from());
    Set<Integer> now = new HashSet<>(result.livePath());
    List<Integer> left = new ArrayList<>(before.stream().filter(n -> !now.contains(n)).toList());
    Collections.reverse(left); // the latest first: an older turn's subagent goes back last, to the earliest point
    Set<Integer> was = new HashSet<>(before);
    List<Integer> came = result.livePath().stream().filter(n -> !was.contains(n)).toList();
    for (int n : left) {
      links(parent, n).forEach(link -> child(link.childTab()).ifPresent(child -> {
        int first = Collections.min(link.checkpoints());
        int back = child.session().snapshot().checkpoint(first).map(c -> c.parent()).orElse(0);
        child.session().submit(new Command.GoTo(back, false));
      }));
    }
    for (int n : came) {
      links(parent, n).forEach(link -> child(link.childTab()).ifPresent(child ->
          child.session().submit(new Command.GoTo(Collections.max(link.checkpoints()), false))));
    }
  }

  /** The subagents that checkpoint {@code n}'s turn ran, from its task results. */
  private static List<ChildLink> links(TabSession parent, int n) {
    return parent.memory().messages().getOrDefault(n, List.of()).stream()
        .filter(m -> m instanceof ChatMessage.ToolResult r && r.toolName().equals(TaskTool.NAME))
        .map(m -> ChildLink.in(((ChatMessage.ToolResult) m).content()))
        .flatMap(Optional::stream).filter(link -> !link.checkpoints().isEmpty()).toList();
  }

  private Optional<WorkspaceTab> child(String tabId) {
    Workspace ws = workspace.get();
    return ws == null ? Optional.empty() : ws.tabs().stream().filter(t -> t.tabId().equals(tabId)).findFirst();
  }

  private static List<Integer> pathTo(TabSession tab, int n) {
    LinkedList<Integer> path = new LinkedList<>();
    for (int at = n; at >= 0; at = tab.snapshot().checkpoint(at).map(c -> c.parent()).orElse(-1)) {
      path.addFirst(at);
    }
    return path;
  }
}
