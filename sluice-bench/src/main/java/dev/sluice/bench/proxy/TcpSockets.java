package dev.sluice.bench.proxy;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Established TCP connections of a process by port, read from outside it: the socket inodes its
 * descriptors point to ({@code /proc/PID/fd}, {@code socket:[INODE]}) matched against the kernel's
 * tables ({@code /proc/net/tcp} and {@code /proc/net/tcp6}: a JVM's sockets on 127.0.0.1 are IPv6
 * sockets with mapped addresses). How the harness counts the connections a proxy holds on its
 * listener and to its upstream without asking the proxy; matching on the port alone would also
 * count other processes' sockets that happen to use the same port number.
 */
public final class TcpSockets {
  private static final List<Path> TABLES =
      List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

  /** The kernel's code for ESTABLISHED in the {@code st} column. */
  private static final String ESTABLISHED = "01";

  private TcpSockets() {}

  /**
   * Established connections of {@code proxy}'s processes whose local port is {@code port} (those a
   * listener on it accepted).
   */
  public static int establishedFrom(ProxyProcess proxy, int port) throws IOException {
    return count(socketInodes(proxy), port, true);
  }

  /** Established connections of {@code proxy}'s processes whose remote port is {@code port}. */
  public static int establishedTo(ProxyProcess proxy, int port) throws IOException {
    return count(socketInodes(proxy), port, false);
  }

  private static Set<String> socketInodes(ProxyProcess proxy) throws IOException {
    Set<String> inodes = new HashSet<>();
    for (long pid : proxy.processTree()) {
      try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", pid + "", "fd"))) {
        for (Path fd : fds) {
          String target;
          try {
            target = Files.readSymbolicLink(fd).toString();
          } catch (NoSuchFileException closedMeanwhile) {
            continue;
          }
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring("socket:[".length(), target.length() - 1));
          }
        }
      }
    }
    return inodes;
  }

  private static int count(Set<String> inodes, int port, boolean local) throws IOException {
    int n = 0;
    for (Path table : TABLES) {
      if (Files.isReadable(table)) {
        n += count(Files.readString(table), inodes, port, local);
      }
    }
    return n;
  }

  /**
   * Counts the lines of a table's text that are established, belong to one of {@code inodes} and
   * have {@code port} as their local (or remote) port. A line is {@code sl local rem st tx:rx
   * tr:when retrnsmt uid timeout inode ...}, addresses as {@code HEXADDR:HEXPORT}.
   */
  static int count(String table, Set<String> inodes, int port, boolean local) {
    int n = 0;
    for (String line : table.split("\n")) {
      String[] cells = line.trim().split("\\s+");
      if (cells.length < 10
          || !cells[0].endsWith(":")
          || !cells[3].equals(ESTABLISHED)
          || !inodes.contains(cells[9])) {
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
