package dev.waymark.app;

import java.util.ArrayList;
import java.util.List;

/**
 * The settings' {@code "web"} block: {@code allowHosts}, hosts {@code web_fetch} reaches even where
 * they are on this machine or its network (a documentation server on localhost, an intranet wiki).
 * Only the user's own settings may list them, or choose the search backend (an untrusted project's are
 * ignored with the warning: it could point your searches, and your key, at a server of its own).
 */
record WebSetting(List<String> allowHosts, Search search) {
  WebSetting {
    allowHosts = allowHosts == null ? List.of() : List.copyOf(allowHosts);
  }

  /**
   * {@code "search": {"provider": "searxng|brave|tavily", "url": …, "apiKeyEnv": …}}: the backend of
   * {@code web_search}, its key read from the environment variable named (default {@code BRAVE_API_KEY},
   * {@code TAVILY_API_KEY}); without it, {@code web_search} is not offered.
   */
  record Search(String provider, String url, String apiKeyEnv) {}

  /** This block with {@code later}'s hosts added (a later file adds, never removes). */
  WebSetting overriddenBy(WebSetting later) {
    if (later == null) {
      return this;
    }
    List<String> hosts = new ArrayList<>(allowHosts);
    later.allowHosts().stream().filter(h -> !hosts.contains(h)).forEach(hosts::add);
    return new WebSetting(hosts, later.search() != null ? later.search() : search);
  }
}
