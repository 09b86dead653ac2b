/**
 * The slash commands as values: the catalogue the menu and help show ({@code CommandCatalog},
 * {@code CommandEntry}), parsing a line ({@code SlashCommand}), the words for a mode
 * ({@code ModeText}) and what the run is ({@code RunInfo}). Carrying a command out is
 * {@code run}'s.
 *
 * <p>May use core's {@code protocol}, {@code context} and {@code tool} values, and no package of
 * the interface: those that show or route ({@code screen}, {@code frame}, {@code keys},
 * {@code run}) all use it.
 */
package dev.waymark.tui.command;
