/**
 * The terminal under the interface: reading keys and bracketed paste on their own thread, turning
 * them into {@code UiInput}, the rebindable key map, and writing grapheme clusters.
 *
 * <p>May use Lanterna and {@code tui.text}.
 */
package dev.waymark.tui.terminal;
