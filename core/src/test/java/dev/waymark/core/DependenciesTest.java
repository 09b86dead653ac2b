package dev.waymark.core;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The engine's dependencies stay the ones it needs: the JDK does what Guava did for two calls. */
class DependenciesTest {
  @Test
  void guavaIsNotOnTheClassPath() {
    assertThatThrownBy(() -> Class.forName("com.google.common.hash.Hashing")).isInstanceOf(ClassNotFoundException.class);
    assertThatThrownBy(() -> Class.forName("com.google.common.io.ByteStreams")).isInstanceOf(ClassNotFoundException.class);
  }
}
