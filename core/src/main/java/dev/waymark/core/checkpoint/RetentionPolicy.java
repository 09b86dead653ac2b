package dev.waymark.core.checkpoint;

import java.time.Duration;

/**
 * How many automatic checkpoints of one tab keep their tags, and for how long. Named saves and
 * the live checkpoint are always kept. A pruned checkpoint stays in the tree; its files stay
 * restorable for as long as a later tag still reaches its commit.
 */
public record RetentionPolicy(int keepPerTab, Duration maxAge) {
  public static final RetentionPolicy DEFAULT = new RetentionPolicy(1000, Duration.ofDays(30));

  public RetentionPolicy {
    if (keepPerTab < 1) {
      throw new IllegalArgumentException("keepPerTab must be at least 1");
    }
    if (maxAge.isNegative() || maxAge.isZero()) {
      throw new IllegalArgumentException("maxAge must be positive");
    }
  }
}
