package dev.sluice.proxy.http;

/**
 * What is known about the client connection a request came on: what header values may name as
 * {@code ${client_ip}}, {@code ${client_port}}, {@code ${sni}}, {@code ${alpn}}, {@code ${ja3}} and
 * {@code ${ja4}}. A fact not known (no TLS, no fingerprint) is null.
 *
 * @param clientIp the client's address as text (after a PROXY header, the one it names), without
 *     brackets
 * @param clientPort its port
 * @param tls whether the client connection is TLS (X-Forwarded-Proto {@code https})
 * @param sni the server name the client asked for, or null
 * @param alpn the application protocol agreed, or null
 * @param ja3 the client's JA3 fingerprint, or null
 * @param ja4 its JA4 fingerprint, or null
 */
public record ConnectionFacts(
    String clientIp, int clientPort, boolean tls, String sni, String alpn, String ja3, String ja4) {

  /** The fact a template variable names, or null when it is not known. */
  String fact(ValueTemplate.Variable variable) {
    return switch (variable) {
      case CLIENT_IP -> clientIp;
      case CLIENT_PORT -> clientPort <= 0 ? null : Integer.toString(clientPort);
      case SNI -> sni;
      case ALPN -> alpn;
      case JA3 -> ja3;
      case JA4 -> ja4;
    };
  }
}
