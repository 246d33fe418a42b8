package dev.sluice.tls;

/** Whether a TLS server asks its clients for a certificate. */
public enum ClientAuth {
  /** No client certificate is asked for. */
  NONE,
  /** A client certificate is asked for; a client without one is still accepted. */
  OPTIONAL,
  /** A client certificate signed by a trusted authority is required. */
  REQUIRED
}
