package dev.waymark.core.bisect;

/**
 * One checkpoint tested.
 *
 * @param checkpoint its number
 * @param exitStatus the command's exit status ({@code -1}: it timed out)
 * @param written the files and links its layer held
 * @param deleted the paths its layer hid
 * @param prepareMillis how long making its layer took
 * @param runMillis how long the command ran
 * @param outputTail the last lines of the command's output
 */
public record BisectStep(int checkpoint, int exitStatus, Verdict verdict, int written, int deleted, long prepareMillis,
    long runMillis, String outputTail) {}
