package dev.sluice.proxy.testing;

import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/** Which certificate a TLS listener presents: what a reload of its files must change. */
public final class ServedCertificate {
  private ServedCertificate() {}

  /** The subject of the certificate {@code address} presents (the test CA trusted). */
  public static String subject(InetSocketAddress address) throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, TestPki.get().caTrust().trustManagers(), null);
    try (SSLSocket socket =
        (SSLSocket)
            context.getSocketFactory().createSocket(address.getAddress(), address.getPort())) {
      socket.startHandshake();
      return ((X509Certificate) socket.getSession().getPeerCertificates()[0])
          .getSubjectX500Principal()
          .getName();
    } catch (IOException e) {
      throw new AssertionError("TLS handshake with " + address, e);
    }
  }
}
