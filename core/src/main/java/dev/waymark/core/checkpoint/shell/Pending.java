package dev.waymark.core.checkpoint.shell;

import dev.waymark.core.checkpoint.lib.FileStat;
import dev.waymark.core.checkpoint.lib.FileState;
import dev.waymark.core.checkpoint.lib.FileVersion;
import dev.waymark.core.checkpoint.shell.Scan.Seen;

/**
 * A change the command may have made: from {@code was} to {@code current}; {@code disk} is what
 * the path holds now ({@code current} unless another tab wrote over the command's version since).
 */
record Pending(String path, Seen was, FileStat now, FileState state, FileVersion current, FileVersion disk) {
  Pending(String path, Seen was, FileStat now, FileState state, FileVersion current) {
    this(path, was, now, state, current, current);
  }
}
