package dev.waymark.core.model;

/** Receives a model's answer while it streams. Called on the model client's thread, in order. */
public interface StreamListener {
  void textDelta(String text);

  /** A tool call's name is known (its arguments may still be arriving). */
  default void toolCallStarted(String id, String name) {}

  StreamListener IGNORE = text -> {};
}
