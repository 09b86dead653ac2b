package dev.waymark.core.tool;

import java.net.URI;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The search backend {@code web_search} asks, as the user configured it: SearXNG's JSON API (a
 * server of theirs, no key), Brave Search or Tavily (a key from the environment, as model keys are).
 *
 * @param provider {@code searxng}, {@code brave} or {@code tavily}
 * @param url where its API is (SearXNG: the server's address, required; the others: their public API, by default)
 * @param apiKey the key, read from the environment variable the settings name (empty for SearXNG)
 */
public record WebSearch(String provider, URI url, Optional<String> apiKey) {
  public static final String BRAVE_URL = "https://api.search.brave.com/res/v1/web/search";
  public static final String TAVILY_URL = "https://api.tavily.com/search";

  /**
   * The backend for settings {@code provider}, {@code url} (may be null) and {@code apiKeyEnv} (may be null:
   * {@code BRAVE_API_KEY} or {@code TAVILY_API_KEY}), reading the key from {@code env}; why not, when it cannot be used.
   */
  public static Result configure(String provider, String url, String apiKeyEnv, Map<String, String> env) {
    String name = provider == null ? "" : provider.strip().toLowerCase(Locale.ROOT);
    String defaultUrl;
    String keyVariable;
    switch (name) {
      case "searxng" -> {
        if (url == null || url.isBlank()) {
          return new Result(Optional.empty(), Optional.of("web.search: searxng needs the url of your SearXNG server"));
        }
        defaultUrl = url;
        keyVariable = null;
      }
      case "brave" -> {
        defaultUrl = BRAVE_URL;
        keyVariable = apiKeyEnv == null ? "BRAVE_API_KEY" : apiKeyEnv;
      }
      case "tavily" -> {
        defaultUrl = TAVILY_URL;
        keyVariable = apiKeyEnv == null ? "TAVILY_API_KEY" : apiKeyEnv;
      }
      default -> {
        return new Result(Optional.empty(), Optional.of("web.search: unknown provider \"" + provider
            + "\" (searxng, brave or tavily)"));
      }
    }
    URI uri;
    try {
      uri = URI.create((url == null || url.isBlank() ? defaultUrl : url).strip());
    } catch (IllegalArgumentException e) {
      return new Result(Optional.empty(), Optional.of("web.search: the url is not a URL (" + e.getMessage() + ")"));
    }
    if (uri.getScheme() == null || !uri.getScheme().matches("https?")) {
      return new Result(Optional.empty(), Optional.of("web.search: the url must be http:// or https://"));
    }
    Optional<String> key = Optional.empty();
    if (keyVariable != null) {
      String value = env.get(keyVariable);
      if (value == null || value.isBlank()) {
        return new Result(Optional.empty(), Optional.of("web.search: " + name + " needs its key in " + keyVariable
            + "; web_search is not offered"));
      }
      key = Optional.of(value.strip());
    }
    return new Result(Optional.of(new WebSearch(name, uri, key)), Optional.empty());
  }

  /** A backend, or why there is none. */
  public record Result(Optional<WebSearch> search, Optional<String> problem) {}

  @Override
  public String toString() {
    return "WebSearch[" + provider + " at " + url + (apiKey.isPresent() ? ", with a key" : "") + "]"; // never the key
  }
}
