/**
 * One tab's agent: {@link dev.waymark.core.agent.TabSession} takes the protocol's commands on
 * its own ordered queue, runs turns against a model ({@code TurnRunner}), asks approval for tool
 * calls ({@code ApprovalGate}), folds steering into the running turn, and moves the view cursor
 * ({@code ViewCursor}). It drives the checkpoint facade for files and keeps the conversation
 * beside each checkpoint. The tab keeps submission, its queue, snapshots and close; its commands'
 * work is done by task classes ({@code TurnStart}, {@code RestoreCommands}, {@code SaveCommands},
 * {@code TabSettings}, {@code BackgroundNotice}) built from one parts record ({@code TabParts}).
 *
 * <p>May use {@code protocol}, {@code model}, {@code tool}, {@code context}, {@code permission} and
 * the checkpoint facade and values ({@code checkpoint}, {@code checkpoint.lib}), never the
 * engine's insides; no Lanterna, nothing printed.
 */
package dev.waymark.core.agent;
