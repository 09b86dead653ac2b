/**
 * The user's project as it is, read-only: walking it under the ignore rules git would apply
 * ({@code ProjectWalker}, also used by {@code list_files}, {@code grep} and {@code @}-mentions;
 * the {@code .gitignore} rules a scan saw are kept and replayed by {@code IgnoreRules}), and the
 * user's own git repository ({@code UserGitRepository}: where it is and its index;
 * {@code UserGitConfig}: the settings that decide how it is read; {@code UserObjects} and
 * {@code UserObjectLinks}: its objects; {@code Conversions}: the attributes under which a blob is
 * not the file's bytes), which lets a clean file be known without being read. {@code CaptureThreads}
 * are the named executors a scan walks and a watch registers on.
 *
 * <p>May use {@code checkpoint.lib} and JGit; writes nothing.
 */
package dev.waymark.core.checkpoint.project;
