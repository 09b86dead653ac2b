package dev.waymark.core.model;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The one JSON mapper of the model clients: thread-safe once configured, and never configured after. */
final class ModelJson {
  static final ObjectMapper JSON = new ObjectMapper();

  private ModelJson() {}
}
