/**
 * The interface's side of each tab: {@code TabController} sends the tab's commands and applies
 * its events to the tab's state; {@code Tabs} keeps them in order.
 *
 * <p>May use core's {@code workspace}, {@code agent} and {@code protocol}, and {@code tui.chat},
 * {@code tui.approval}, {@code tui.input}.
 */
package dev.waymark.tui.tab;
