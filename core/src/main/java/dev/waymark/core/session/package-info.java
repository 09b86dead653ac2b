/**
 * Sessions on disk: every tab of a project, its tree, messages, tags and drafts, as versioned JSON
 * written atomically ({@code SessionStore}, {@code SessionCodec}), and read back even when another
 * process wrote it meanwhile.
 *
 * <p>May use {@code agent}, {@code protocol}, {@code model}, {@code context}, the checkpoint facade
 * and values, and Jackson; nothing printed.
 */
package dev.waymark.core.session;
