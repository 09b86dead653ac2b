/**
 * Hooks as Claude Code runs them: the user's programs, started at the agent's events (before and
 * after a tool call, a prompt, a tab's start and end, a stop, a compaction, a notification) with
 * one JSON object on standard input; their exit code and standard output may block or steer what
 * follows. What a hook run during a turn changes in the project is recorded in that turn's
 * checkpoint, like a shell command's.
 */
package dev.waymark.core.hook;
