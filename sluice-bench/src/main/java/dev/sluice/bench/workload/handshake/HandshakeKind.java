package dev.sluice.bench.workload.handshake;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What a phase of the handshake workload measures: full handshakes, or resumed ones. */
public enum HandshakeKind {
  /** The client offers no session: every handshake is a full one (key exchange and signature). */
  FULL,
  /** The client offers the session its previous connection got: every handshake must resume. */
  RESUMED;

  /** The lower-case name used on the command line, in messages and as a field prefix. */
  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The kinds {@code --mode} selects: {@code full}, {@code resumed} or {@code both} (full first).
   *
   * @throws IllegalArgumentException naming the accepted values
   */
  public static List<HandshakeKind> select(String mode) {
    List<HandshakeKind> kinds = new ArrayList<>();
    switch (mode) {
      case "full" -> kinds.add(FULL);
      case "resumed" -> kinds.add(RESUMED);
      case "both" -> kinds.addAll(List.of(FULL, RESUMED));
      default ->
          throw new IllegalArgumentException(
              "--mode expects full, resumed or both, got '" + mode + "'");
    }
    return List.copyOf(kinds);
  }

  /** Parses {@link #id()}. */
  public static HandshakeKind parse(String id) {
    return valueOf(id.toUpperCase(Locale.ROOT));
  }
}
