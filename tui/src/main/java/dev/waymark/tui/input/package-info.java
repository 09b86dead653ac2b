/**
 * The input box: editing, history, wrapping to the box's width, and finding the {@code @}-mention
 * under the cursor.
 *
 * <p>May use {@code tui.text} and core's {@code context} (the project's file index) only.
 */
package dev.waymark.tui.input;
