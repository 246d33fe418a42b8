package dev.sluice.bench.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** Counting a process's established connections by port in the kernel's table text. */
class TcpSocketsTest {
  // Port 0x1F90 = 8080, 0x1F91 = 8081; state 01 ESTABLISHED, 06 TIME_WAIT, 0A LISTEN; the last
  // column shown is the socket's inode.
  private static final String TABLE =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout"
          + " inode\n"
          + "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 100 1\n"
          + "   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000 0 0 101 1\n"
          + "   2: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 0 0 102 1\n"
          + "   3: 0100007F:1F90 0100007F:D432 06 00000000:00000000 00:00000000 00000000 0 0 0 1\n"
          + "   4: 0100007F:D433 0100007F:1F91 01 00000000:00000000 00:00000000 00000000 0 0 104 1\n"
          + "   5: 0100007F:1F90 0100007F:D434 01 00000000:00000000 00:00000000 00000000 0 0 105 1\n";

  /** The proxy's sockets: its listener, one accepted connection and its upstream connection. */
  private static final Set<String> PROXY = Set.of("100", "101", "104");

  @Test
  void countsTheProcesssEstablishedConnectionsByLocalOrRemotePort() {
    assertThat(TcpSockets.count(TABLE, PROXY, 8080, true)).isEqualTo(1);
    assertThat(TcpSockets.count(TABLE, PROXY, 8081, false)).isEqualTo(1);
    assertThat(TcpSockets.count(TABLE, PROXY, 8081, true)).isZero();
    // Line 5 has the same local port but is another process's socket; line 2 is the client's.
    assertThat(TcpSockets.count(TABLE, Set.of("101", "105"), 8080, true)).isEqualTo(2);
    assertThat(TcpSockets.count(TABLE, PROXY, 8080, false)).isZero();
  }

  @Test
  void readsIpv6Lines() {
    String v6 =
        "  sl  local_address                         remote_address                        st\n"
            + "   0: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:D431 01"
            + " 00000000:00000000 00:00000000 00000000 0 0 7 1\n";
    assertThat(TcpSockets.count(v6, Set.of("7"), 8080, true)).isEqualTo(1);
  }
}
