/**
 * Agent Skills as Claude Code and Codex read them: folders holding a {@code SKILL.md} (YAML front
 * matter with {@code name} and {@code description}, then instructions) and files beside it. The
 * catalogue tells the model what skills exist; the {@code skill} tool hands it one's body and files.
 *
 * <p>Reads the skill directories only, never runs what they hold. Uses the JDK and Jackson (YAML)
 * only; the {@code skill} tool that serves a catalogue to the model lives with the other tools.
 */
package dev.waymark.core.skill;
