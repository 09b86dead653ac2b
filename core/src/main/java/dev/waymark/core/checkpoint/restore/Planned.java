package dev.waymark.core.checkpoint.restore;

import dev.waymark.core.checkpoint.lib.FileVersion;

/** For one path of a restore: the version the tab expects on disk now, and the version the target wants. */
public record Planned(FileVersion base, FileVersion target) {}
