package dev.sluice.bench.workload.handshake;

import dev.sluice.bench.harness.Message;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the load client counted in one phase, and whether the phase measured what it claims: every
 * connection completed its handshake, negotiated the run's version and echoed its bytes intact; in
 * a full phase no session was resumed, in a resumed phase every one was.
 *
 * @param kind what the phase measured
 * @param handshakes connections that completed (handshake, bytes echoed and checked, closed)
 * @param resumed of those, how many OpenSSL's client says resumed a session
 * @param failed connections that did not complete, or completed wrongly
 * @param firstFailure why the first of them failed (empty when none did)
 * @param nanos from the phase's start to its last connection's end
 * @param suites the cipher suites negotiated, comma separated
 * @param groups the key-exchange groups negotiated, comma separated
 */
public record HandshakeTally(
    HandshakeKind kind,
    long handshakes,
    long resumed,
    long failed,
    String firstFailure,
    long nanos,
    String suites,
    String groups) {

  /** Handshakes that were not resumptions. */
  public long full() {
    return handshakes - resumed;
  }

  /** Null when the phase measured what it claims; otherwise why not. */
  public String failure() {
    if (failed > 0) {
      return failed
          + " connections failed in the "
          + kind.id()
          + " phase; the first: "
          + firstFailure;
    }
    if (handshakes == 0) {
      return "no handshake completed in the " + kind.id() + " phase";
    }
    if (kind == HandshakeKind.FULL && resumed > 0) {
      return resumed
          + " of "
          + handshakes
          + " handshakes of the full phase resumed a session: the figure would not be of full"
          + " handshakes";
    }
    if (kind == HandshakeKind.RESUMED && resumed < handshakes) {
      return "resumption did not happen: "
          + resumed
          + " of "
          + handshakes
          + " handshakes of the resumed phase resumed ("
          + full()
          + " were new sessions)";
    }
    return null;
  }

  /** This tally as the fields of the client's message. */
  public Map<String, Object> fields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("kind", kind.id());
    fields.put("handshakes", handshakes);
    fields.put("resumed", resumed);
    fields.put("failed", failed);
    fields.put("firstFailure", firstFailure);
    fields.put("nanos", nanos);
    fields.put("suites", suites);
    fields.put("groups", groups);
    return fields;
  }

  /** The tally a client's message carries ({@link #fields}). */
  public static HandshakeTally from(Message message) {
    Map<String, String> f = message.fields();
    return new HandshakeTally(
        HandshakeKind.parse(f.get("kind")),
        Long.parseLong(f.get("handshakes")),
        Long.parseLong(f.get("resumed")),
        Long.parseLong(f.get("failed")),
        f.getOrDefault("firstFailure", ""),
        Long.parseLong(f.get("nanos")),
        f.getOrDefault("suites", ""),
        f.getOrDefault("groups", ""));
  }
}
