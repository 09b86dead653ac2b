/**
 * Sharing a session with another clone of the project: one file, a git bundle of the session's
 * tab tags that also carries the session and its base (what the project's files were, where the
 * session's checkpoints touched them, and the commit the clone was on). Import refuses a project
 * whose files differ from that base, and names them. Start at {@link dev.waymark.core.share.SessionShare}.
 *
 * <p>May use {@code session}, the checkpoint facade, Jackson and JGit (the user's HEAD, read only);
 * nothing printed.
 */
package dev.waymark.core.share;
