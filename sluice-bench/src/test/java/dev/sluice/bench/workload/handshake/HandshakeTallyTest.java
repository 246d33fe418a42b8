package dev.sluice.bench.workload.handshake;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.bench.harness.Message;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The handshake workload's verdict on what its client counted. */
class HandshakeTallyTest {

  private static HandshakeTally tally(HandshakeKind kind, long handshakes, long resumed) {
    return new HandshakeTally(kind, handshakes, resumed, 0, "", 1_000_000, "S", "X25519");
  }

  @Test
  void aResumedPhaseInWhichSessionsWereNotResumedFails() {
    assertThat(tally(HandshakeKind.RESUMED, 500, 500).failure()).isNull();
    assertThat(tally(HandshakeKind.RESUMED, 500, 0).failure())
        .isEqualTo(
            "resumption did not happen: 0 of 500 handshakes of the resumed phase resumed (500 were"
                + " new sessions)");
    // One new session is enough: the figure would mix full handshakes into the resumed ones.
    assertThat(tally(HandshakeKind.RESUMED, 500, 499).failure())
        .startsWith("resumption did not happen: 499 of 500");
  }

  @Test
  void aFullPhaseInWhichASessionWasResumedFails() {
    assertThat(tally(HandshakeKind.FULL, 500, 0).failure()).isNull();
    assertThat(tally(HandshakeKind.FULL, 500, 1).failure())
        .startsWith("1 of 500 handshakes of the full phase resumed a session");
  }

  @Test
  void failedConnectionsAndEmptyPhasesFail() {
    HandshakeTally failed =
        new HandshakeTally(
            HandshakeKind.FULL, 10, 0, 2, "connection 3: wrong byte at stream offset 5", 1, "", "");
    assertThat(failed.failure())
        .isEqualTo(
            "2 connections failed in the full phase; the first: connection 3: wrong byte at stream"
                + " offset 5");
    assertThat(tally(HandshakeKind.RESUMED, 0, 0).failure())
        .isEqualTo("no handshake completed in the resumed phase");
  }

  @Test
  void aTallyCrossesTheProtocolIntact() {
    HandshakeTally tally =
        new HandshakeTally(HandshakeKind.RESUMED, 7, 6, 1, "closed early", 42, "A,B", "X25519");
    Map<String, String> fields = new LinkedHashMap<>();
    tally.fields().forEach((k, v) -> fields.put(k, String.valueOf(v)));
    Message line = Message.parse(new Message("DONE", fields).format());
    assertThat(HandshakeTally.from(line)).isEqualTo(tally);
  }
}
