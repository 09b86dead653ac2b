/**
 * Text as cells: styled spans and lines, display widths, wrapping, Markdown, diff lines, and the
 * words the screens share ({@code Plurals}).
 *
 * <p>May use the JDK only (and Lanterna's colours in {@code Painter}); the bottom of the
 * interface, used by every other part.
 */
package dev.waymark.tui.text;
