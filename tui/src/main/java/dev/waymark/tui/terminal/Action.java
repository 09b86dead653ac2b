package dev.waymark.tui.terminal;

import java.util.Locale;

/** What a key can do in the interface; settings name them in kebab-case ({@code view-back}). */
public enum Action {
  SUBMIT("send the message (steers the running turn)"),
  NEWLINE("new line in the input"),
  INTERRUPT("interrupt the turn (at an approval too) · back a step · stop viewing · twice when idle: rewind list"),
  VIEW_BACK("view the previous checkpoint"),
  VIEW_FORWARD("view the next checkpoint (past the last: live)"),
  NEW_TAB("open a tab"),
  CLOSE_TAB("close the tab, on an empty input (/tab reopen brings it back)"),
  NEXT_TAB("next tab"),
  PREVIOUS_TAB("previous tab"),
  TAB_1("tab 1"), TAB_2("tab 2"), TAB_3("tab 3"), TAB_4("tab 4"), TAB_5("tab 5"),
  TAB_6("tab 6"), TAB_7("tab 7"), TAB_8("tab 8"), TAB_9("tab 9"),
  HISTORY_PREVIOUS("earlier input (on the first line)"),
  HISTORY_NEXT("later input (on the last line)"),
  COMPLETE("complete a /command"),
  SCROLL_UP("scroll the chat up"),
  SCROLL_DOWN("scroll the chat down"),
  EXPAND("expand or fold tool calls: whole diffs, output, changed files"),
  CYCLE_MODE("the tab's next approval mode: plan → ask → auto-edit → auto (when sandboxed), never yolo"),
  CLEAR_OR_EXIT("clear the input · interrupt the turn · twice when idle: quit"),
  EXIT_IF_EMPTY("quit (on an empty input; asks while a call waits for approval)"),
  HELP("keys and commands"),
  // editing the input (help lists them after the commands); after the others, so that a key the
  // user binds to one of those wins
  CURSOR_LEFT("cursor left"),
  CURSOR_RIGHT("cursor right"),
  WORD_LEFT("a word left"),
  WORD_RIGHT("a word right"),
  LINE_START("start of the line · top of a panel"),
  LINE_END("end of the line · bottom of a panel"),
  DELETE_BACK("delete the character before the cursor"),
  DELETE_FORWARD("delete the character under the cursor"),
  DELETE_WORD_BACK("delete the word before the cursor"),
  KILL_TO_END("delete to the end of the line"),
  KILL_TO_START("delete to the start of the line");

  private final String description;

  Action(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }

  /** The name settings use: {@code view-back}. */
  public boolean edits() {
    return ordinal() >= CURSOR_LEFT.ordinal();
  }

  public String settingName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
