/**
 * The one place where what the engine did becomes the sentences the user and the model read: the
 * checkpoint engine, the tools and the hooks return values (how a command was captured, why it
 * did not run), and {@code Wording} words them. Its own package, below {@code tool}, {@code hook}
 * and {@code agent}, so that each of them can use it and none has to use another.
 *
 * <p>May use the checkpoint engine's values ({@code checkpoint.lib}) and its open insides
 * ({@code CommandCapture}, {@code WorkTreeChanges}); nothing that runs anything, nothing printed.
 */
package dev.waymark.core.wording;
