/**
 * Carrying out the slash commands: {@code CommandRunner} takes a parsed line from
 * {@code command} and does it through the tab, the workspace and the {@code keys.Host} (panels,
 * pickers, tabs, quitting); {@code StatusReport} is {@code /status}'s text.
 *
 * <p>May use core's {@code workspace}, {@code protocol}, {@code session}, {@code permission},
 * {@code context} and {@code tool} values, and the interface's {@code command}, {@code keys},
 * {@code screen}, {@code chat}, {@code tab} and {@code text}. Nothing below it uses it: the
 * interface ({@code WaymarkUi}) wires it to the key router's {@code Host}.
 */
package dev.waymark.tui.run;
