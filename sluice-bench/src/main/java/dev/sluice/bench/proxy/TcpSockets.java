package dev.sluice.bench.proxy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Established TCP connections on this machine by port, from the kernel's tables ({@code
 * /proc/net/tcp} and {@code /proc/net/tcp6}: a JVM's sockets on 127.0.0.1 are IPv6 sockets with
 * mapped addresses), seen from outside every process: how the harness counts the connections a
 * proxy holds on its listener and to its upstream without asking the proxy.
 */
public final class TcpSockets {
  private static final List<Path> TABLES =
      List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

  /** The kernel's code for ESTABLISHED in the {@code st} column. */
  private static final String ESTABLISHED = "01";

  private TcpSockets() {}

  /** Established connections whose local port is {@code port} (a listener's accepted ones). */
  public static int establishedFrom(int port) throws IOException {
    return count(port, true);
  }

  /** Established connections whose remote port is {@code port} (those connected to it). */
  public static int establishedTo(int port) throws IOException {
    return count(port, false);
  }

  private static int count(int port, boolean local) throws IOException {
    int n = 0;
    for (Path table : TABLES) {
      if (Files.isReadable(table)) {
        n += count(Files.readString(table), port, local);
      }
    }
    return n;
  }

  /**
   * Counts the lines of a table's text that are established with {@code port} as their local (or
   * remote) port. A line is {@code sl local rem st ...}, addresses as {@code HEXADDR:HEXPORT}.
   */
  static int count(String table, int port, boolean local) {
    int n = 0;
    for (String line : table.split("\n")) {
      String[] cells = line.trim().split("\\s+");
      if (cells.length < 4 || !cells[0].endsWith(":") || !cells[3].equals(ESTABLISHED)) {
        continue;
      }
      String address = cells[local ? 1 : 2];
      int colon = address.lastIndexOf(':');
      if (colon > 0 && Integer.parseInt(address.substring(colon + 1), 16) == port) {
        n++;
      }
    }
    return n;
  }
}
