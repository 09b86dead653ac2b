/**
 * What the model is told about where it works, besides the conversation: the facts of the
 * machine and project for the system prompt, the project's instruction files ({@code AGENTS.md},
 * {@code CLAUDE.md}), custom prompt commands, files and images a prompt mentions.
 *
 * <p>Reads the project and the user's configuration directory, and the user's git repository
 * through JGit, read-only. Plain values out: no printing, no Lanterna, no network.
 */
package dev.waymark.core.context;
