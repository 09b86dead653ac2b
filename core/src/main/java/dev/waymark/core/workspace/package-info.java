/**
 * One project's open tabs for a front end: {@code Workspace} opens, resumes, saves and closes tabs
 * (saving a session before a prompt is sent), and keeps each tab's transcript of events; the
 * package-private {@code TabReopener}, {@code SessionSaver} and {@code SessionListing} do its
 * parts.
 *
 * <p>May use {@code agent}, {@code session}, {@code protocol}, {@code tool}, {@code mcp} and the
 * checkpoint facade; no Lanterna, nothing printed.
 */
package dev.waymark.core.workspace;
