package dev.waymark.tui.frame;

import dev.waymark.tui.command.CommandCatalog;
import dev.waymark.tui.input.MentionFinder;
import dev.waymark.tui.screen.CommandMenu;
import dev.waymark.tui.screen.Overlay;
import dev.waymark.tui.screen.Picker;
import java.time.Instant;

/**
 * What is drawn over the chat and takes the keys while it is: a yes/no question, a panel (help,
 * a diff), a list to pick from (/rewind, /model); the command menu over the input while it holds a
 * {@code /command}; and the one-line hint above the input.
 */
public final class Layers {
  /**
   * A yes/no question; {@code yes} runs on y or Y only, anything else answers no. {@code cameUp}:
   * when a question nobody asked for came up (a refused branch), so that letters typed as it
   * appeared are not taken for an answer; null for one the user asked for (closing a tab, quitting).
   */
  public record Confirm(String question, Runnable yes, Instant cameUp) {
    public Confirm(String question, Runnable yes) {
      this(question, yes, null);
    }
  }

  private Confirm confirm;
  private Overlay overlay;
  private Picker picker;
  private String hint = "";
  private final CommandMenu menu;

  public Layers() {
    this(new CommandCatalog());
  }

  public Layers(CommandCatalog commands) {
    this.menu = new CommandMenu(commands);
  }

  /** The command menu; it shows while the input holds the start of a command. */
  public CommandMenu menu() {
    return menu;
  }

  private MentionFinder mentions;

  /** The {@code @} finder, when the project's files can be searched; null otherwise. */
  public MentionFinder mentions() {
    return mentions;
  }

  public void mentions(MentionFinder finder) {
    mentions = finder;
  }

  public Confirm confirm() {
    return confirm;
  }

  public void ask(Confirm question) {
    confirm = question;
  }

  /** Takes the question away and runs its yes if {@code answer} is y or Y. */
  public void answer(String answer) {
    Confirm question = confirm;
    confirm = null;
    if (question != null && answer.equalsIgnoreCase("y")) {
      question.yes().run();
    }
  }

  public Overlay overlay() {
    return overlay;
  }

  public void show(Overlay panel) {
    overlay = panel;
  }

  public Picker picker() {
    return picker;
  }

  public void pick(Picker list) {
    picker = list;
  }

  /** Closes the panel and the list. */
  public void closePanels() {
    overlay = null;
    picker = null;
  }

  public String hint() {
    return hint;
  }

  public void hint(String text) {
    hint = text == null ? "" : text;
  }

  /** True while something over the chat takes the keys. */
  public boolean modal() {
    return confirm != null || overlay != null || picker != null;
  }
}
