package dev.sluice.proxy.config;

import java.util.List;

/**
 * What a listener refuses before it costs anything: every refused connection is closed at once with
 * a counted cause, and slows nobody else.
 *
 * @param connectionsPerSecond new connections per second (a token bucket); 0 for no limit
 * @param burst how many may come at once above that rate (the bucket's size)
 * @param perSourceAddress connections open at once from one client address; 0 for no limit
 * @param allow when not empty, only clients in these networks
 * @param deny clients in these networks are refused (checked after allow)
 * @param requireSni TLS clients that send no server name are refused
 * @param ja3Blocklist TLS clients with one of these JA3 fingerprints (lower-case hex) are refused
 * @param ja4Blocklist TLS clients with one of these JA4 fingerprints are refused
 */
public record Limits(
    int connectionsPerSecond,
    int burst,
    int perSourceAddress,
    List<Cidr> allow,
    List<Cidr> deny,
    boolean requireSni,
    List<String> ja3Blocklist,
    List<String> ja4Blocklist) {

  public static final Limits NONE = new Limits(0, 0, 0, List.of(), List.of(), false);

  public Limits {
    allow = List.copyOf(allow);
    deny = List.copyOf(deny);
    ja3Blocklist = List.copyOf(ja3Blocklist);
    ja4Blocklist = List.copyOf(ja4Blocklist);
  }

  /** Limits that block no fingerprint. */
  public Limits(
      int connectionsPerSecond,
      int burst,
      int perSourceAddress,
      List<Cidr> allow,
      List<Cidr> deny,
      boolean requireSni) {
    this(
        connectionsPerSecond,
        burst,
        perSourceAddress,
        allow,
        deny,
        requireSni,
        List.of(),
        List.of());
  }
}
