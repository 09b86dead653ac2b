/**
 * The user's project as it is, read-only: walking it under the ignore rules git would apply
 * ({@code ProjectWalker}, also used by {@code list_files}, {@code grep} and {@code @}-mentions), and
 * the user's own git repository (its index, config and objects), which lets a clean file be known
 * without being read.
 *
 * <p>May use {@code checkpoint.lib} and JGit; writes nothing.
 */
package dev.waymark.core.checkpoint.project;
