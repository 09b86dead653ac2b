package dev.waymark.core.subagent;

import dev.waymark.core.agent.ChildTabs;
import dev.waymark.core.protocol.ChildRestore;
import dev.waymark.core.workspace.Workspace;
import dev.waymark.core.workspace.WorkspaceTab;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * {@link ChildTabs} over a {@link Workspace}: undo belongs to the parent's turn. Each child tab a
 * parent's checkpoint owns moves with it, one after the other, each on its own tab's queue, and the
 * parent's restore waits for all of them before it says what happened; each child shows its own
 * restore too, and the user can still undo its steps one by one in its tab.
 */
final class ChildMoves implements ChildTabs {
  /** How long a child may take to stop its turn and move; longer, it is said not to have moved. */
  private static final long WAIT_SECONDS = 120;

  private final Supplier<Workspace> workspace;
  private final String parentTab;

  ChildMoves(Supplier<Workspace> workspace, String parentTab) {
    this.workspace = workspace;
    this.parentTab = parentTab;
  }

  @Override
  public List<ChildRestore> move(List<Move> moves, boolean force) {
    Workspace ws = workspace.get();
    List<WorkspaceTab> all = ws == null ? List.of() : ws.tabs(); // a closed child moves too: its files are the project's
    int parentNumber = 1 + all.stream().filter(t -> !t.closed()).map(WorkspaceTab::tabId).toList().indexOf(parentTab);
    List<ChildRestore> done = new ArrayList<>();
    for (Move move : moves) {
      Optional<WorkspaceTab> child = all.stream().filter(t -> t.tabId().equals(move.link().tab())).findFirst();
      if (child.isEmpty()) {
        done.add(ChildRestore.notMoved(move.link().tab(), move.back(), ChildRestore.State.NOT_OPEN, ""));
        continue;
      }
      ChildRestore moved;
      try {
        moved = child.get().session().followParent(move.link(), move.back(), force).get(WAIT_SECONDS, TimeUnit.SECONDS);
      } catch (RejectedExecutionException gone) { // its session ended meanwhile
        moved = ChildRestore.notMoved(move.link().tab(), move.back(), ChildRestore.State.NOT_OPEN, "");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        moved = ChildRestore.notMoved(move.link().tab(), move.back(), ChildRestore.State.FAILED, "interrupted");
      } catch (ExecutionException | TimeoutException e) {
        moved = ChildRestore.notMoved(move.link().tab(), move.back(), ChildRestore.State.FAILED,
            e instanceof TimeoutException ? "it did not stop within " + WAIT_SECONDS + " s" : String.valueOf(e.getCause()));
      }
      done.add(moved.named(parentNumber, child.get().title()));
    }
    return done;
  }

  @Override
  public void putBack(List<ChildRestore> moved) {
    Workspace ws = workspace.get();
    for (ChildRestore child : moved) {
      if (child.state() != ChildRestore.State.MOVED || child.result().isEmpty() || ws == null) {
        continue;
      }
      ws.tabs().stream().filter(t -> t.tabId().equals(child.tab())).findFirst().ifPresent(tab -> {
        try {
          tab.session().putBack(child.result().get().from()).get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
          LoggerFactory.getLogger(ChildMoves.class).warn("tab {} could not be put back", child.tab(), e);
        }
      });
    }
  }
}
