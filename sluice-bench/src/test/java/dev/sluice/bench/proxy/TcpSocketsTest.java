package dev.sluice.bench.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Counting established connections by port in the kernel's table text. */
class TcpSocketsTest {
  // Port 0x1F90 = 8080, 0x1F91 = 8081; state 01 ESTABLISHED, 06 TIME_WAIT, 0A LISTEN.
  private static final String TABLE =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
          + "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0\n"
          + "   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0\n"
          + "   2: 0100007F:D431 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0\n"
          + "   3: 0100007F:1F90 0100007F:D432 06 00000000:00000000 00:00000000 00000000     0\n"
          + "   4: 0100007F:D433 0100007F:1F91 01 00000000:00000000 00:00000000 00000000     0\n";

  @Test
  void countsEstablishedConnectionsByLocalOrRemotePort() {
    assertThat(TcpSockets.count(TABLE, 8080, true)).isEqualTo(1);
    assertThat(TcpSockets.count(TABLE, 8080, false)).isEqualTo(1);
    assertThat(TcpSockets.count(TABLE, 8081, false)).isEqualTo(1);
    assertThat(TcpSockets.count(TABLE, 8081, true)).isZero();
  }

  @Test
  void readsIpv6Lines() {
    String v6 =
        "  sl  local_address                         remote_address                        st\n"
            + "   0: 0000000000000000FFFF00000100007F:1F90 0000000000000000FFFF00000100007F:D431 01\n";
    assertThat(TcpSockets.count(v6, 8080, true)).isEqualTo(1);
  }
}
