package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.store.RestoreJournal;
import dev.waymark.core.checkpoint.store.ShadowRepository;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rolling back a restore a crash interrupted, from its journal, as the store opens: each file it
 * wrote is put back unless it changed since; what cannot be put back is named with the blob that
 * holds its earlier content, and the journal is kept.
 */
public final class RestoreRecovery {
  private static final Logger LOG = LoggerFactory.getLogger(RestoreRecovery.class);

  private RestoreRecovery() {}

  /**
   * Rolls back what the journal at {@code journalFile} left behind, and says what it did (nothing
   * when there is no journal). Runs under the project lock; never throws for a damaged journal or
   * a file it cannot put back, so that the store still opens.
   */
  public static List<String> rollBack(Path journalFile, WorkTree workTree, ShadowRepository repo, Clock clock)
      throws IOException {
    Optional<RestoreJournal.Content> journal;
    try {
      journal = RestoreJournal.read(journalFile);
    } catch (IOException | RuntimeException damaged) {
      // Written atomically, so only a damaged disk or a hand edit gets here: the store must still open.
      Path kept = journalFile.resolveSibling("restore-journal.damaged-" + clock.millis() + ".json");
      Files.move(journalFile, kept);
      String summary = "The restore journal was damaged (" + damaged.getMessage().lines().findFirst().orElse("")
          + "), so an interrupted restore could not be rolled back; it is kept as " + kept
          + " and names each file with its content before and after (blobs in the shadow repository).";
      LOG.warn(summary);
      return List.of(summary);
    }
    if (journal.isEmpty()) {
      return List.of();
    }
    List<String> report = new ArrayList<>();
    RestoreJournal.Content content = journal.get();
    // In the opposite order of RestoreWrite.apply(), as its rollBack does: a file written where a
    // removed directory was must go before that directory's files can come back.
    List<RestoreJournal.Entry> entries = new ArrayList<>(content.entries());
    Collections.reverse(entries);
    boolean complete = true;
    for (RestoreJournal.Entry entry : entries) {
      String path = entry.path();
      try {
        WorkTree.checkPath(path);
        switch (workTree.putBack(path, entry.prior(), entry.next(), repo)) {
          case PUT_BACK:
            report.add("put back " + path);
            break;
          case CHANGED_SINCE:
            report.add("left " + path + " as it is (changed since the interrupted restore)");
            break;
          default:
            break;
        }
      } catch (IOException | RuntimeException e) {
        // The store must still open: say what could not be put back and keep the journal.
        complete = false;
        report.add("could not put back " + path + " (" + e.getMessage() + "); its earlier content is blob "
            + (entry.priorBlob() == null ? "(none: it did not exist)" : entry.priorBlob()) + " in the shadow repository");
      }
    }
    if (complete) {
      Files.deleteIfExists(journalFile);
    } else {
      Path kept = journalFile.resolveSibling("restore-journal.unrecovered-" + clock.millis() + ".json");
      Files.move(journalFile, kept);
      report.add("the journal is kept as " + kept);
    }
    String summary = "An interrupted restore of tab " + content.tab() + " (#" + content.from() + " to #"
        + content.target() + ") was rolled back: " + (report.isEmpty() ? "no file had been written yet" : String.join("; ", report));
    LOG.warn(summary);
    return List.of(summary);
  }
}
