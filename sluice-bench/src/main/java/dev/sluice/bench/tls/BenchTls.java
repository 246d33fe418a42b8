package dev.sluice.bench.tls;

import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Params;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A child's view of the benchmark's TLS: the key and certificate from {@link BenchCertificate}, the
 * {@link TlsVersion}, and the peer's plain JDK sockets, which enable exactly that version and its
 * one cipher suite. Every measured connection checks what it negotiated with {@link
 * #checkNegotiated}, so an arm can never run a different suite unnoticed.
 */
public final class BenchTls {
  /**
   * The field of the measured side's first message, and the note of its arm in the report, that
   * names the TLS library the arm runs on.
   */
  public static final String LIBRARY = "tlsLibrary";

  private final TlsVersion version;
  private final PrivateKey key;
  private final X509Certificate certificate;
  private final SSLContext jdkContext;

  private BenchTls(TlsVersion version, PrivateKey key, X509Certificate certificate)
      throws GeneralSecurityException, IOException {
    this.version = version;
    this.key = key;
    this.certificate = certificate;
    this.jdkContext = jdkContext(key, certificate);
  }

  /** Loads the certificate the harness generated and the version the run asked for. */
  public static BenchTls from(Params params) throws GeneralSecurityException, IOException {
    BenchCertificate certificate = BenchCertificate.from(params);
    char[] password = certificate.password().toCharArray();
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(certificate.keyStore())) {
      store.load(in, password);
    }
    String alias = store.aliases().nextElement();
    return new BenchTls(
        TlsVersion.parse(params.string(TlsVersion.OPTION)),
        (PrivateKey) store.getKey(alias, password),
        (X509Certificate) store.getCertificate(alias));
  }

  /** The version every connection uses. */
  public TlsVersion version() {
    return version;
  }

  /** The server's private key. */
  public PrivateKey key() {
    return key;
  }

  /** The server's certificate, which clients trust. */
  public X509Certificate certificate() {
    return certificate;
  }

  /**
   * Fails when {@code session} did not negotiate the benchmark's version and cipher suite.
   *
   * @throws IllegalStateException naming what was negotiated instead
   */
  public void checkNegotiated(SSLSession session) {
    if (!version.protocol().equals(session.getProtocol())
        || !version.cipherSuite().equals(session.getCipherSuite())) {
      throw new IllegalStateException(
          "negotiated "
              + session.getProtocol()
              + " with "
              + session.getCipherSuite()
              + ", expected "
              + version.protocol()
              + " with "
              + version.cipherSuite());
    }
  }

  /**
   * The {@link #LIBRARY} note of {@code message}, the measured side's first message: a run's record
   * of what it ran TLS on (none when the run had no TLS).
   */
  public static Map<String, String> libraryNote(Message message) {
    String library = message.fields().get(LIBRARY);
    return library == null ? Map.of() : Map.of(LIBRARY, library);
  }

  /**
   * The JDK's TLS as an arm that runs on its SSLEngine reports it: the provider of a {@code TLS}
   * context and the Java version.
   */
  public String jdkLibrary() {
    return "JDK SSLEngine ("
        + jdkContext.getProvider().getName()
        + ", Java "
        + Runtime.version()
        + ")";
  }

  /** The peer's listening TLS socket on loopback. */
  public SSLServerSocket peerServerSocket(int backlog) throws IOException {
    SSLServerSocket server =
        (SSLServerSocket)
            jdkContext
                .getServerSocketFactory()
                .createServerSocket(0, backlog, InetAddress.getLoopbackAddress());
    server.setSSLParameters(peerParameters());
    return server;
  }

  /**
   * The peer's client socket to {@code address}, connected and past its handshake, with SNI and
   * host-name verification as the arms' clients do.
   */
  public SSLSocket peerConnect(InetSocketAddress address) throws IOException {
    Socket plain = new Socket();
    plain.setTcpNoDelay(true);
    plain.connect(address);
    SSLSocket socket =
        (SSLSocket)
            jdkContext
                .getSocketFactory()
                .createSocket(plain, BenchCertificate.HOST, address.getPort(), true);
    SSLParameters parameters = peerParameters();
    parameters.setServerNames(List.of(new SNIHostName(BenchCertificate.HOST)));
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(parameters);
    socket.setUseClientMode(true);
    socket.startHandshake();
    checkNegotiated(socket.getSession());
    return socket;
  }

  private SSLParameters peerParameters() {
    SSLParameters parameters = jdkContext.getDefaultSSLParameters();
    parameters.setProtocols(new String[] {version.protocol()});
    parameters.setCipherSuites(new String[] {version.cipherSuite()});
    return parameters;
  }

  private static SSLContext jdkContext(PrivateKey key, X509Certificate certificate)
      throws GeneralSecurityException, IOException {
    char[] password = "in-memory".toCharArray();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    keys.load(null, null);
    keys.setKeyEntry("key", key, password, new X509Certificate[] {certificate});
    KeyManagerFactory keyManagers =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keyManagers.init(keys, password);
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("trusted", certificate);
    TrustManagerFactory trustManagers =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trusted);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
    return context;
  }
}
