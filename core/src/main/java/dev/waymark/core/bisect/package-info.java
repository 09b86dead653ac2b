/**
 * Bisect: the first checkpoint on a path of a tab's tree where a command fails. Each candidate's
 * tree is seen through a throw-away copy-on-write layer ({@code layer.ScratchLayer}) whose upper
 * holds only where that tree differs from the project now, and the command runs on it in the
 * sandbox; the layer is deleted, never applied, so the project's files are never touched. Exit
 * statuses follow {@code git bisect run}: 0 good, 125 cannot test (skip), 1 to 127 bad, from 128
 * on the bisect stops. Start at {@link dev.waymark.core.bisect.Bisection}.
 *
 * <p>Works from a tree's immutable {@code TreeSnapshot} and the store's blobs, off the
 * tab's thread. May use the checkpoint facade and values ({@code checkpoint}, {@code checkpoint.lib},
 * the open {@code CommandMark}), {@code layer} and {@code sandbox}; nothing printed.
 */
package dev.waymark.core.bisect;
