/**
 * The sandbox shell commands run in: on Linux, {@code bwrap} (bubblewrap) with the whole file
 * system read-only except the project, a private {@code /tmp} and the directories the user
 * declares writable; Waymark's data directory hidden, its config, the project's {@code .git} and
 * {@code .waymark/} read-only; no network unless allowed. It only builds command lines and says
 * why a sandbox cannot start: it starts no command of the agent itself and records nothing (the
 * shell tool and the checkpoint capture do).
 *
 * <p>May use the JDK only: no Lanterna, no JGit, nothing printed.
 */
package dev.waymark.core.sandbox;
