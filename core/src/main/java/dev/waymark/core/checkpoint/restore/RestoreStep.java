package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.FileVersion;

/** One write a restore will make, with what it replaces. */
record RestoreStep(String path, FileVersion prior, FileVersion next) {}
