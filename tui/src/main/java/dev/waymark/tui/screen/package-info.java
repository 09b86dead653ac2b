/**
 * The fixed parts of the screen and its overlays: tab bar, checkpoint rail, footer, command menu,
 * help, picker.
 *
 * <p>May use {@code tui.text}, {@code tui.chat}, {@code tui.terminal}, {@code tui.command}'s
 * catalogue and core's {@code protocol}.
 */
package dev.waymark.tui.screen;
