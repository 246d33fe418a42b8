/**
 * Sluice's core: event loops with exact-size reads and by-reference writes ({@code
 * dev.sluice.net}), the chunks and memory figures applications see ({@code dev.sluice.memory}), and
 * TLS on the JDK's SSLEngine ({@code dev.sluice.tls}). The loops' own machinery (slabs, pools,
 * write queues, counters) lives in {@code dev.sluice.internal}, which is not exported. Depends on
 * the JDK alone.
 */
module dev.sluice.core {
  exports dev.sluice.memory;
  exports dev.sluice.net;
  exports dev.sluice.tls;

  // The JDK's OCSP stapling reads Sluice's cache through these URLs.
  provides java.net.spi.URLStreamHandlerProvider with
      dev.sluice.tls.OcspCacheUrls;
}
