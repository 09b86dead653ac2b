/**
 * The slash commands: the catalogue the menu and help show, parsing, and
 * {@code CommandRunner}, which carries each out through the key router's {@code Host}.
 *
 * <p>May use core's {@code workspace}, {@code protocol}, {@code session}, {@code tool},
 * {@code permission}, {@code mcp} and {@code context}, and the interface's own packages. It is in
 * the known ring with {@code keys}, {@code screen} and {@code frame} (see
 * {@code PackageCyclesTest}).
 */
package dev.waymark.tui.command;
