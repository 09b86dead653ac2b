package dev.waymark.app;

import dev.waymark.core.checkpoint.ShadowStore;
import dev.waymark.core.protocol.ErrorKind;
import dev.waymark.core.session.SessionException;
import dev.waymark.core.session.SessionFile;
import dev.waymark.core.session.SessionStore;
import dev.waymark.core.workspace.SessionFork;
import java.io.Console;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What to open when the session asked for is open in another Waymark: with {@code --fork}, or when
 * the user says yes at the terminal, a fork of it (a new session with a copy of its tabs and
 * checkpoints, the original left as it is); headless without {@code --fork}, a refusal that says
 * how to fork.
 */
final class ForkChoice {
  private ForkChoice() {}

  /** The session and tab {@code exec} goes on in. */
  record Chosen(SessionFile file, String tab) {}

  /**
   * The interface's session: {@code chosen} itself when no other Waymark holds it, else its fork if
   * asked ({@code fork}) or accepted on {@code console}; empty when the user declined.
   */
  static Optional<SessionFile> forInterface(ShadowStore store, SessionStore files, SessionFile chosen, boolean fork,
      Console console, PrintWriter err) {
    if (fork) {
      return Optional.of(fork(store, files, chosen, err).session());
    }
    Optional<String> elsewhere = SessionFork.openElsewhere(store, chosen);
    if (elsewhere.isEmpty()) {
      return Optional.of(chosen);
    }
    if (console == null) {
      throw new SessionException(ErrorKind.BUSY, elsewhere.get() + ". " + howToFork(chosen, "waymark --resume ") + ".");
    }
    String answer = console.readLine("%s.%nFork it: open a new session with a copy of its tabs and checkpoints, the "
        + "original left as it is there? [y/N] ", elsewhere.get());
    if (answer == null || !List.of("y", "yes").contains(answer.trim().toLowerCase(Locale.ROOT))) {
      err.println("waymark: not opened; close it in the other Waymark first, or fork it (`waymark --resume " + chosen.id()
          + " --fork`).");
      return Optional.empty();
    }
    return Optional.of(fork(store, files, chosen, err).session());
  }

  /** {@code exec --session}'s session and tab: {@code tab} of {@code file}, or of its fork with {@code fork}. */
  static Chosen forExec(ShadowStore store, SessionStore files, SessionFile file, String tab, boolean fork, PrintWriter err) {
    if (fork) {
      SessionFork.Forked forked = fork(store, files, file, err);
      String copy = forked.tabIds().get(tab);
      if (copy == null) {
        throw new SessionException(ErrorKind.REFUSED, "Tab " + tab + " is isolated: a fork leaves it out.");
      }
      return new Chosen(forked.session(), copy);
    }
    var holder = store.heldElsewhere(tab);
    if (holder.isPresent()) {
      throw new SessionException(ErrorKind.BUSY, "Tab " + tab + " of session " + file.id() + " is open in another Waymark "
          + "(process " + (holder.getAsLong() < 0 ? "unknown" : holder.getAsLong()) + "). "
          + howToFork(file, "waymark exec --session ") + ", or close it there.");
    }
    return new Chosen(file, tab);
  }

  private static String howToFork(SessionFile file, String command) {
    return "`" + command + file.id() + " --fork` goes on in a copy of it as a new session (the original is left as it is)";
  }

  private static SessionFork.Forked fork(ShadowStore store, SessionStore files, SessionFile original, PrintWriter err) {
    SessionFork.Forked forked = SessionFork.fork(store, files, original);
    err.println("waymark: session " + original.id() + " forked as " + forked.session().id() + "; the original is left as it is.");
    forked.notes().forEach(note -> err.println("waymark: " + note));
    return forked;
  }
}
