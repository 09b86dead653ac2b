package dev.waymark.app;

import dev.waymark.core.protocol.Command;
import dev.waymark.core.protocol.Event;
import java.io.Console;
import java.util.Locale;

/** {@code exec}'s approval question on the terminal, for its own calls and its subagents'. */
final class ConsoleApproval {
  private ConsoleApproval() {}

  /** Asks until the answer is yes, always or no; no answer (end of input) denies. */
  static Command ask(Console console, Event.ToolCallProposed proposed, String rule) {
    while (true) {
      String answer = console.readLine("Allow %s %s? [y]es, [a]lways %s this session, [n]o: ",
          proposed.call().name(), proposed.summary(), rule);
      if (answer == null) {
        return new Command.Deny(proposed.call().id(), "no answer");
      }
      switch (answer.trim().toLowerCase(Locale.ROOT)) {
        case "y":
        case "yes":
          return new Command.Approve(proposed.call().id(), false);
        case "a":
        case "always":
          return new Command.Approve(proposed.call().id(), true);
        case "n":
        case "no":
          return new Command.Deny(proposed.call().id(), "");
        default:
          break;
      }
    }
  }
}
