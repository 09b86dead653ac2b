/**
 * Allow and deny rules for tool calls, as plain values: parsing {@code run_shell(npm test:*)},
 * {@code read_file} or {@code mcp__github}, matching a call (a tool name and, for {@code run_shell},
 * its command) against them, the safe command prefix an approval may offer, and the rules in force
 * for a workspace with where each came from. Uses only the JDK; saving rules to a settings file is
 * the application's ({@link dev.waymark.core.permission.Permissions.RuleFiles}).
 */
package dev.waymark.core.permission;
