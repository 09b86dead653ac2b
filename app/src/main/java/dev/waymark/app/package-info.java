/**
 * The {@code waymark} program: the command line (picocli), settings from the user's and the
 * project's files, the environment and flags, the wiring of model clients, tools, MCP servers and
 * sandbox into a workspace, the headless commands ({@code exec}, {@code checkpoints},
 * {@code sessions}, {@code store}, {@code mcp}), logging to a file, and the launcher of the
 * interface.
 *
 * <p>May use every core package, the interface and picocli.
 */
package dev.waymark.app;
