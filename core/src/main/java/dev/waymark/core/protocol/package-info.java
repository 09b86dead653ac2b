/**
 * The seam between the engine and its front ends: commands in ({@code Command}), events out
 * ({@code Event}), and the views they carry. Plain values only, so that the interface,
 * {@code exec --json} and the headless commands read the same thing
 * ({@code ProtocolIsPlainValuesTest}).
 *
 * <p>May use the JDK only.
 */
package dev.waymark.core.protocol;
