package dev.sluice.proxy.config;

import dev.sluice.proxy.proxyprotocol.IpText;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;

/** Where a listener binds or an upstream is: TCP {@code host:port} or a Unix socket. */
public sealed interface Endpoint {

  /** The address to bind or connect to (a TCP host name is resolved here). */
  SocketAddress socketAddress();

  /**
   * {@code address} as an operator writes it: {@code 10.0.0.1:443}, {@code [::1]:443}, {@code
   * unix:/run/app.sock} (the JDK's own form has a leading slash); null stays null.
   */
  static String format(SocketAddress address) {
    return switch (address) {
      case null -> null;
      case InetSocketAddress inet when inet.getAddress() != null -> {
        String host = inet.getAddress().getHostAddress();
        yield (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + inet.getPort();
      }
      case InetSocketAddress inet -> inet.getHostString() + ":" + inet.getPort();
      case UnixDomainSocketAddress unix -> "unix:" + unix.getPath();
      default -> address.toString();
    };
  }

  /** TCP: a host name or IP literal and a port. */
  record Tcp(String host, int port) implements Endpoint {
    @Override
    public SocketAddress socketAddress() {
      return new InetSocketAddress(host, port);
    }

    @Override
    public String toString() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /** A Unix-domain stream socket. */
  record Unix(Path path) implements Endpoint {
    @Override
    public SocketAddress socketAddress() {
      return UnixDomainSocketAddress.of(path);
    }

    @Override
    public String toString() {
      return "unix:" + path;
    }
  }

  /**
   * Parses {@code host:port}, {@code [v6]:port} or {@code unix:/path}.
   *
   * @throws IllegalArgumentException saying what is accepted
   */
  static Endpoint parse(String text) {
    String t = text.strip();
    if (t.startsWith("unix:")) {
      String path = t.substring("unix:".length());
      if (path.isEmpty()) {
        throw new IllegalArgumentException("'" + text + "' names no socket file");
      }
      return new Unix(Path.of(path));
    }
    if (t.startsWith("[") && t.endsWith("]")) {
      throw new IllegalArgumentException("'" + text + "' has no port: use [ipv6]:port");
    }
    int colon = t.lastIndexOf(':');
    if (colon <= 0 || colon == t.length() - 1) {
      throw new IllegalArgumentException(
          "'" + text + "' is not an address: use host:port, [ipv6]:port or unix:/path");
    }
    String host = t.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
      if (host.isEmpty()) {
        throw new IllegalArgumentException("'" + text + "' has no host between the brackets");
      }
      String literal = host.indexOf('%') < 0 ? host : host.substring(0, host.indexOf('%'));
      byte[] v6 = IpText.parse(literal);
      if (v6 == null || v6.length != 16) {
        throw new IllegalArgumentException(
            "'"
                + text
                + "': brackets hold an IPv6 address, as [::1]:7000 (or [fe80::1%eth0]:7000)");
      }
    } else if (host.contains(":")) {
      throw new IllegalArgumentException(
          "'" + text + "': write an IPv6 address in brackets, as [::1]:7000");
    } else if (isNumeric(host) && IpText.parse(host) == null) {
      // The resolver would read it as inet_aton does: 127.1 is 127.0.0.1, 010 is 8, 0x7f is 127.
      throw new IllegalArgumentException(
          "'"
              + text
              + "': "
              + host
              + " is not an IPv4 address: write four decimal numbers 0..255 without leading"
              + " zeros, as 127.0.0.1");
    }
    String digits = t.substring(colon + 1);
    int port;
    try {
      if (!digits.matches("-?\\d+")) {
        throw new NumberFormatException(digits);
      }
      port = Integer.parseInt(digits);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' has no port number after the colon");
    }
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("'" + text + "': port must be 0..65535");
    }
    return new Tcp(host, port);
  }

  /** A host of numbers only (decimal, octal, 0x hex) is an address literal, never a name. */
  private static boolean isNumeric(String host) {
    return host.matches("(?i)([0-9]+|0x[0-9a-f]*)(\\.([0-9]+|0x[0-9a-f]*))*\\.?");
  }
}
