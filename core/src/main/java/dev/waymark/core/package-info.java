/**
 * The engine of Waymark, free of any front end: {@link dev.waymark.core.WaymarkHome} (where
 * Waymark keeps its data) at the top, the engine's parts in the packages below. Start at
 * {@code protocol} (what a front end sends and reads) and {@code agent.TabSession} (one tab).
 *
 * <p>Nothing in {@code core} imports Lanterna or prints; it may use JGit, Jackson, the JDK's HTTP
 * client and the MCP SDK.
 */
package dev.waymark.core;
