package dev.sluice.bench.workload.tlsidle;

/** What the idle connections speak: TLS, or plain TCP as the control that isolates TLS's cost. */
enum Transport {
  TLS,
  PLAIN;

  /** The option that chooses it. */
  static final String OPTION = "transport";

  /** Parses {@code tls} or {@code plain}. */
  static Transport parse(String id) {
    return switch (id) {
      case "tls" -> TLS;
      case "plain" -> PLAIN;
      default ->
          throw new IllegalArgumentException("--transport expects tls or plain, got '" + id + "'");
    };
  }
}
