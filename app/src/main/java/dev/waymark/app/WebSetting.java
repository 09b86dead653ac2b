package dev.waymark.app;

import java.util.ArrayList;
import java.util.List;

/**
 * The settings' {@code "web"} block: {@code allowHosts}, hosts {@code web_fetch} reaches even where
 * they are on this machine or its network (a documentation server on localhost, an intranet wiki).
 * Only the user's own settings may list them (an untrusted project's are ignored with the warning).
 */
record WebSetting(List<String> allowHosts) {
  WebSetting {
    allowHosts = allowHosts == null ? List.of() : List.copyOf(allowHosts);
  }

  /** This block with {@code later}'s hosts added (a later file adds, never removes). */
  WebSetting overriddenBy(WebSetting later) {
    if (later == null) {
      return this;
    }
    List<String> hosts = new ArrayList<>(allowHosts);
    later.allowHosts().stream().filter(h -> !hosts.contains(h)).forEach(hosts::add);
    return new WebSetting(hosts);
  }
}
