/**
 * A tab's chat as the interface shows it: {@code TabState} folds the tab's events into what is
 * shown (turns, the viewed checkpoint, drafts, notices), and {@code ChatView} lays out only the
 * visible blocks, so a frame costs the same with ten messages or ten thousand.
 *
 * <p>May use core's {@code protocol} and agent values, and {@code tui.text}.
 */
package dev.waymark.tui.chat;
