/**
 * One frame: the overlays stacked on the chat ({@code Layers}), where each part goes for the
 * terminal's size ({@code FrameLayout}), and the painting of it all ({@code Frame}).
 *
 * <p>May use the interface's parts and core's tool values; no core engine call.
 */
package dev.waymark.tui.frame;
