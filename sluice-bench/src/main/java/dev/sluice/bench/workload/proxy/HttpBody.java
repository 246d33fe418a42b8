package dev.sluice.bench.workload.proxy;

/**
 * The upstream's fixed response body of the HTTP workloads: letters and digits only (nginx writes
 * it from a quoted string, wrk's check from a Lua literal), the same text in every arm.
 */
final class HttpBody {
  private static final String ALPHABET =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

  private HttpBody() {}

  /** The body of {@code size} bytes. */
  static String of(int size) {
    StringBuilder body = new StringBuilder(size);
    for (int i = 0; i < size; i++) {
      body.append(ALPHABET.charAt((i * 7 + i / ALPHABET.length()) % ALPHABET.length()));
    }
    return body.toString();
  }
}
