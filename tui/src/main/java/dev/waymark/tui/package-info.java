/**
 * The full-screen interface on Lanterna's {@code Screen}: {@link dev.waymark.tui.WaymarkUi} owns the
 * UI thread, takes keys and the workspace's events, and draws frames. The packages below hold its
 * parts; none of them uses this one ({@code PackageCyclesTest}).
 *
 * <p>May use core's {@code workspace}, {@code protocol} and {@code context}; never git, the
 * network or the project's files directly.
 */
package dev.waymark.tui;
