package dev.sluice.proxy.route;

/**
 * GREASE values (RFC 8701): 0x0a0a, 0x1a1a ... 0xfafa, sent at random to keep servers tolerant of
 * unknown values. Both fingerprints leave them out, so that a client that sends them keeps one.
 */
final class Grease {
  private Grease() {}

  static boolean is(int value) {
    return (value & 0x0f0f) == 0x0a0a && (value >> 8) == (value & 0xff);
  }
}
