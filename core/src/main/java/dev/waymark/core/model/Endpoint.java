package dev.waymark.core.model;

import java.net.URI;
import java.util.Objects;

/**
 * Where a model client sends its requests, with which key, and what the user set to choose them:
 * error messages name those settings, so a user whose key lives in {@code MY_PROXY_KEY} is not
 * told to check {@code OPENAI_API_KEY}.
 *
 * @param baseUrl the API root (OpenAI-compatible: including any {@code /v1}; Anthropic: without it)
 * @param apiKey the key, or null when none is set (local servers need none)
 * @param keyName where the key comes from, e.g. {@code OPENAI_API_KEY}, or {@code MY_KEY or the key file ~/.k}
 * @param baseUrlName where the base URL comes from, e.g. {@code --base-url or OPENAI_BASE_URL}
 */
public record Endpoint(URI baseUrl, String apiKey, String keyName, String baseUrlName) {
  public Endpoint {
    Objects.requireNonNull(baseUrl);
    Objects.requireNonNull(keyName);
    Objects.requireNonNull(baseUrlName);
    apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey.strip();
  }

  /** An OpenAI-compatible server configured by the built-in variables. */
  public static Endpoint openAi(URI baseUrl, String apiKey) {
    return new Endpoint(baseUrl, apiKey, "OPENAI_API_KEY", "--base-url or OPENAI_BASE_URL");
  }

  /** Anthropic's API configured by the built-in variables. */
  public static Endpoint anthropic(URI baseUrl, String apiKey) {
    return new Endpoint(baseUrl, apiKey, "ANTHROPIC_API_KEY", "--base-url or ANTHROPIC_BASE_URL");
  }
}
