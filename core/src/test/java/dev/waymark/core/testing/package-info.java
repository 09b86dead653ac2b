/**
 * What tests of every module share, published in core's test-jar (as JGit publishes
 * {@code org.eclipse.jgit.junit}): {@code FakeModelServer} (an OpenAI- and Anthropic-compatible
 * server on loopback that replays what real servers send), {@code TestMcpServer} (a real MCP
 * server in a child JVM), {@code GitCli} (the real {@code git} command, cut off from the user's
 * settings), {@code FileTrees} (a directory's files as comparable text), and {@code PackageGraph}
 * (the compiled classes' imports, for package-rule tests), {@code TestTabs} and {@code TabEvents} (a
 * store with tabs run by a scripted model, and a tab's events to wait on), and {@code Eventually}
 * (waiting on a condition, never a guessed time).
 *
 * <p>May use any main package of core, JUnit and AssertJ; nothing here reaches package-private
 * engine state, so the tests that need that keep their fixtures beside them.
 */
package dev.waymark.core.testing;
