package dev.waymark.tui.command;

import java.util.List;

/** Asks the run's server which models it offers, for {@code /model} without a name; blocking, so never on the interface's thread. */
@FunctionalInterface
public interface ModelLister {
  /** The models' ids; throws with a message for the user when the server cannot list them. */
  List<String> list() throws Exception;
}
