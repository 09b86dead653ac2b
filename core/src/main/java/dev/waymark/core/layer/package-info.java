/**
 * A shell command's own copy-on-write layer of the project: an overlay mount (in a user and mount
 * namespace of its own, no setuid helper) whose upper directory receives every write the command
 * makes, so that what it changed is known by construction rather than by comparing the tree before
 * and after. The package builds the command prefix that enters the layer ({@link LayerSupport}),
 * reads an upper directory into a list of changes ({@link UpperReader}), applies them to the
 * project with a three-way merge where someone else changed the same file meanwhile
 * ({@link LayerApply}), and keeps each layer on disk with its journal until it is applied, so a
 * kill at any moment is finished at the next start ({@link Layer}, {@link LayerJournal}; a kill
 * once the apply began to change the project, from its {@link ApplyPlan}).
 *
 * <p>It knows nothing of tabs, sessions or checkpoints: callers record what it hands them. May use
 * the JDK, Jackson (a layer's journal) and SLF4J only: no Lanterna, no JGit, nothing printed.
 */
package dev.waymark.core.layer;
