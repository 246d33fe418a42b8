package dev.sluice.tls.openssl;

import java.security.Principal;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIServerName;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSessionContext;

/**
 * What a handshake on the OpenSSL engine settled, copied out of OpenSSL when it finished: so it can
 * be read from any thread, and after the connection (and its SSL) is gone.
 */
final class OpenSslSession extends ExtendedSSLSession {
  /** The largest TLS record: header, 16 KiB of plaintext and what a cipher may add. */
  static final int PACKET_BUFFER_SIZE = 5 + 16 * 1024 + 256;

  static final int APPLICATION_BUFFER_SIZE = 16 * 1024;

  /** The session of an engine whose handshake has not finished. */
  static OpenSslSession handshaking(String peerHost, int peerPort) {
    return new OpenSslSession(
        new byte[0],
        "NONE",
        "SSL_NULL_WITH_NULL_NULL",
        List.of(),
        List.of(),
        List.of(),
        System.currentTimeMillis(),
        false,
        peerHost,
        peerPort);
  }

  private final byte[] id;
  private final String protocol;
  private final String cipherSuite;
  private final List<X509Certificate> peerCertificates;
  private final List<X509Certificate> localCertificates;
  private final List<SNIServerName> requestedServerNames;
  private final long creationTime;
  private final boolean resumed;
  private final String peerHost;
  private final int peerPort;
  private final Map<String, Object> values = new ConcurrentHashMap<>();
  private volatile boolean valid = true;

  OpenSslSession(
      byte[] id,
      String protocol,
      String cipherSuite,
      List<X509Certificate> peerCertificates,
      List<X509Certificate> localCertificates,
      List<SNIServerName> requestedServerNames,
      long creationTime,
      boolean resumed,
      String peerHost,
      int peerPort) {
    this.id = id.clone();
    this.protocol = protocol;
    this.cipherSuite = cipherSuite;
    this.peerCertificates = List.copyOf(peerCertificates);
    this.localCertificates = List.copyOf(localCertificates);
    this.requestedServerNames = List.copyOf(requestedServerNames);
    this.creationTime = creationTime;
    this.resumed = resumed;
    this.peerHost = peerHost;
    this.peerPort = peerPort;
  }

  @Override
  public byte[] getId() {
    return id.clone();
  }

  @Override
  public SSLSessionContext getSessionContext() {
    return null;
  }

  /** Whether the handshake resumed this session (SSL_session_reused), not made it. */
  boolean resumed() {
    return resumed;
  }

  /**
   * When the full handshake that made this session ran: for a resumed session an earlier time than
   * the connection's, as on the JDK engine (OpenSSL keeps it in seconds). BoringSSL restamps a
   * resumed TLS 1.3 session with the time it resumed (to the second), so there it is no older than
   * the connection's second: ask {@link #resumed} (dev.sluice.tls.Resumption) instead.
   */
  @Override
  public long getCreationTime() {
    return creationTime;
  }

  @Override
  public long getLastAccessedTime() {
    return creationTime;
  }

  @Override
  public void invalidate() {
    valid = false;
  }

  @Override
  public boolean isValid() {
    return valid;
  }

  @Override
  public void putValue(String name, Object value) {
    values.put(name, value);
  }

  @Override
  public Object getValue(String name) {
    return values.get(name);
  }

  @Override
  public void removeValue(String name) {
    values.remove(name);
  }

  @Override
  public String[] getValueNames() {
    return values.keySet().toArray(String[]::new);
  }

  @Override
  public Certificate[] getPeerCertificates() throws SSLPeerUnverifiedException {
    if (peerCertificates.isEmpty()) {
      throw new SSLPeerUnverifiedException("the peer presented no certificate");
    }
    return peerCertificates.toArray(Certificate[]::new);
  }

  @Override
  public Certificate[] getLocalCertificates() {
    return localCertificates.isEmpty() ? null : localCertificates.toArray(Certificate[]::new);
  }

  @Override
  public Principal getPeerPrincipal() throws SSLPeerUnverifiedException {
    if (peerCertificates.isEmpty()) {
      throw new SSLPeerUnverifiedException("the peer presented no certificate");
    }
    return peerCertificates.get(0).getSubjectX500Principal();
  }

  @Override
  public Principal getLocalPrincipal() {
    return localCertificates.isEmpty() ? null : localCertificates.get(0).getSubjectX500Principal();
  }

  @Override
  public String getCipherSuite() {
    return cipherSuite;
  }

  @Override
  public String getProtocol() {
    return protocol;
  }

  @Override
  public String getPeerHost() {
    return peerHost;
  }

  @Override
  public int getPeerPort() {
    return peerPort;
  }

  @Override
  public int getPacketBufferSize() {
    return PACKET_BUFFER_SIZE;
  }

  @Override
  public int getApplicationBufferSize() {
    return APPLICATION_BUFFER_SIZE;
  }

  @Override
  public String[] getLocalSupportedSignatureAlgorithms() {
    return new String[0];
  }

  @Override
  public String[] getPeerSupportedSignatureAlgorithms() {
    return new String[0];
  }

  @Override
  public List<SNIServerName> getRequestedServerNames() {
    return requestedServerNames;
  }

  @Override
  public String toString() {
    return "OpenSslSession[" + protocol + ", " + cipherSuite + "]";
  }
}
