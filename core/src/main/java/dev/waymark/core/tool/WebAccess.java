package dev.waymark.core.tool;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What {@code web_fetch} may reach: public addresses only, unless the user lists a host
 * ({@code "web": {"allowHosts": [...]}}). A request to loopback, link-local, private or otherwise
 * non-public addresses could reach services on the user's machine or network (a router, a cloud's
 * metadata endpoint, a database with no password) on behalf of whoever wrote the page the model read.
 *
 * @param allowHosts hosts (lowercase, optionally {@code host:port}) reached whatever their addresses
 * @param timeout the whole request's time limit, redirects included
 * @param maxRedirects how many redirects are followed
 */
public record WebAccess(List<String> allowHosts, Duration timeout, int maxRedirects) {
  public static final WebAccess DEFAULTS = new WebAccess(List.of(), Duration.ofSeconds(30), 5);

  public WebAccess {
    allowHosts = allowHosts.stream().map(h -> h.strip().toLowerCase(Locale.ROOT)).toList();
  }

  /** Why {@code uri} may not be fetched; empty when it may. Resolves the host: each of its addresses must be public. */
  public Optional<String> refusal(URI uri) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      return Optional.of("only http and https URLs are fetched, not " + (scheme.isEmpty() ? "this" : scheme + ":"));
    }
    String host = uri.getHost();
    if (host == null || host.isEmpty()) {
      return Optional.of("the URL has no host");
    }
    if (uri.getUserInfo() != null) {
      return Optional.of("a URL with a user name or password is not fetched");
    }
    String bare = host.toLowerCase(Locale.ROOT).replaceAll("^\\[|\\]$", "");
    if (allowHosts.contains(bare) || uri.getPort() > 0 && allowHosts.contains(bare + ":" + uri.getPort())) {
      return Optional.empty();
    }
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(bare);
    } catch (UnknownHostException e) {
      return Optional.of("the host " + bare + " was not found");
    }
    for (InetAddress address : addresses) {
      if (!isPublic(address)) {
        return Optional.of(bare + " is at " + address.getHostAddress() + ", not a public address: requests to this machine "
            + "or its network are refused unless the host is listed in the settings' web.allowHosts");
      }
    }
    return Optional.empty();
  }

  static boolean isPublic(InetAddress address) {
    if (address.isAnyLocalAddress() || address.isLoopbackAddress() || address.isLinkLocalAddress()
        || address.isSiteLocalAddress() || address.isMulticastAddress()) {
      return false;
    }
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      return first != 0 // "this network"
          && !(first == 100 && second >= 64 && second <= 127) // carrier-grade NAT, often a provider's private network
          && !(first == 192 && second == 0 && (b[2] & 0xff) == 0) // IETF protocol assignments
          && !(first == 198 && (second == 18 || second == 19)) // benchmarking
          && first < 240; // reserved, broadcast
    }
    if (address instanceof Inet6Address v6) {
      if ((b[0] & 0xfe) == 0xfc) {
        return false; // unique local fc00::/7
      }
      if (isMappedV4(b)) {
        try {
          return isPublic(InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16)));
        } catch (UnknownHostException e) {
          return false;
        }
      }
      return !v6.isIPv4CompatibleAddress();
    }
    return false;
  }

  private static boolean isMappedV4(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
  }
}
