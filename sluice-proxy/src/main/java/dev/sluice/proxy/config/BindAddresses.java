package dev.sluice.proxy.config;

import dev.sluice.proxy.proxyprotocol.IpText;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * The addresses one configuration binds, refusing two that overlap. They are compared as the kernel
 * sees them, not as written: {@code localhost:7000} is {@code 127.0.0.1:7000}. TCP listeners set
 * SO_REUSEPORT (so that a new process can take over the ports while the old one drains), which lets
 * two listeners of one process bind one address and the kernel split connections between them; a
 * wildcard ({@code 0.0.0.0} or {@code [::]}: the JDK binds both as the dual-stack wildcard) on a
 * port overlaps every other address on that port. Port 0 (a port of the kernel's choosing) never
 * overlaps.
 */
final class BindAddresses {
  private record Claim(String owner, Endpoint endpoint, Object key, int line) {}

  private final List<Claim> claims = new ArrayList<>();

  /**
   * Records that {@code owner} (such as "listener 'front'") binds {@code endpoint}, written at
   * {@code node}; a problem there if it cannot be resolved or overlaps an earlier claim.
   */
  void claim(String owner, Endpoint endpoint, YamlNode node) {
    Object key =
        switch (endpoint) {
          case Endpoint.Unix unix -> unix.path().toAbsolutePath().normalize();
          case Endpoint.Tcp tcp -> {
            InetSocketAddress resolved = (InetSocketAddress) tcp.socketAddress();
            if (resolved.isUnresolved()) {
              node.problem("cannot resolve " + tcp.host() + " to an address of this host to bind");
              yield null;
            }
            yield resolved;
          }
        };
    if (key == null) {
      return;
    }
    for (Claim earlier : claims) {
      String overlap = overlap(key, earlier.key);
      if (overlap != null) {
        node.problem(
            owner
                + " on "
                + endpoint
                + " overlaps "
                + earlier.owner
                + " on "
                + earlier.endpoint
                + " (line "
                + earlier.line
                + "): "
                + overlap);
      }
    }
    claims.add(new Claim(owner, endpoint, key, node.line()));
  }

  private static String text(InetSocketAddress address) {
    return address.getAddress() instanceof Inet6Address v6
        ? "[" + IpText.formatIpv6(v6.getAddress()) + "]:" + address.getPort()
        : address.getAddress().getHostAddress() + ":" + address.getPort();
  }

  /** Why two binds overlap, or null when they do not. */
  private static String overlap(Object a, Object b) {
    if (a instanceof InetSocketAddress x && b instanceof InetSocketAddress y) {
      if (x.getPort() == 0 || x.getPort() != y.getPort()) {
        return null;
      }
      if (x.getAddress().equals(y.getAddress())) {
        return "both are " + text(x) + ": give each its own address or port";
      }
      if (x.getAddress().isAnyLocalAddress() || y.getAddress().isAnyLocalAddress()) {
        return "a wildcard address takes port "
            + x.getPort()
            + " on every local address, IPv4 and IPv6: give each its own port";
      }
      return null;
    }
    return a.equals(b) ? "one socket file" : null;
  }
}
