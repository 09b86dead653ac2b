/**
 * The approval prompt: a tool call waiting for the user, answered with keys that never type text
 * (↑ ↓ Enter Esc), in steps: allow once; allow a rule, which takes a second step to choose where
 * it is kept (this session, the project's or the user's settings); deny with a line for the
 * model. Plain UI state and its rows; it may use core's protocol and permission values, never
 * Lanterna's screen, git, the network or files.
 */
package dev.waymark.tui.approval;
