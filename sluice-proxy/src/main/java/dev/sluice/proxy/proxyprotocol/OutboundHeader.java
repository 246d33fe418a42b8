package dev.sluice.proxy.proxyprotocol;

import dev.sluice.net.Connection;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Command;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Family;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import dev.sluice.proxy.route.Fingerprint;
import dev.sluice.tls.TlsConnection;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * The PROXY protocol header a pair sends its upstream first, so that the upstream sees the original
 * client.
 *
 * <p>The addresses are the original client's and the address it connected to: from the header the
 * client's connection began with, when it had one (so a chain of proxies keeps the first client),
 * else the connection's own. Two IPv4 addresses make TCP4; IPv6, or a mix, TCP6 (IPv4 mapped); two
 * Unix sockets make a v2 UNIX header; anything else UNKNOWN (v1) or UNSPEC (v2), which tells the
 * upstream to use the connection's own addresses.
 *
 * <p>Version 2 also carries what the upstream may want to authorise by:
 *
 * <ul>
 *   <li>ALPN: the protocol negotiated when this listener terminated TLS. On passthrough none is
 *       sent: the upstream negotiates ALPN itself, and the ClientHello only says what was offered.
 *   <li>AUTHORITY: the server name the client asked for (SNI), from the handshake here or from the
 *       passthrough ClientHello.
 *   <li>SSL, when this listener terminated TLS: the client-connected-over-TLS bit, the version and
 *       cipher, and when the client presented a certificate (which the JDK verified, or the
 *       handshake would have failed) the certificate bits, verify 0 and the subject's CN.
 *   <li>The client's JA3 and JA4 fingerprints (from its ClientHello, terminated or passed through),
 *       in the types the cluster names ({@link FingerprintTlvs}, 0xE0 and 0xE1 by default).
 * </ul>
 *
 * Without TLS here, ALPN and AUTHORITY received in the client's own header are passed on.
 */
public final class OutboundHeader {
  private OutboundHeader() {}

  /** The header's bytes for {@code pair}'s upstream. Loop thread (reads the pair). */
  public static byte[] forPair(Pair pair, Version version) {
    return forPair(pair, version, FingerprintTlvs.DEFAULTS);
  }

  /** The header's bytes, the fingerprints in {@code fingerprints}' types. Loop thread. */
  public static byte[] forPair(Pair pair, Version version, FingerprintTlvs fingerprints) {
    return ProxyHeaderEncoder.encode(headerFor(pair, version, fingerprints));
  }

  /**
   * What a health check sends first: v2 LOCAL (the checker's own connection), v1 {@code PROXY
   * UNKNOWN} (v1 has no LOCAL), as HAProxy's {@code check-send-proxy} does.
   */
  public static byte[] forHealthCheck(Version version) {
    return ProxyHeaderEncoder.encode(
        version == Version.V2 ? ProxyHeader.v2Local() : ProxyHeader.v1Unknown());
  }

  static ProxyHeader headerFor(Pair pair, Version version) {
    return headerFor(pair, version, FingerprintTlvs.DEFAULTS);
  }

  static ProxyHeader headerFor(Pair pair, Version version, FingerprintTlvs fingerprints) {
    SocketAddress source = pair.facts().clientAddress();
    SocketAddress destination = pair.destinationAddress();
    List<Tlv> tlvs = version == Version.V2 ? tlvs(pair, fingerprints) : List.of();
    if (source instanceof InetSocketAddress s
        && destination instanceof InetSocketAddress d
        && s.getAddress() != null
        && d.getAddress() != null) {
      return new ProxyHeader(version, Command.PROXY, ProxyHeader.tcpFamily(s, d), s, d, tlvs);
    }
    if (version == Version.V2
        && source instanceof UnixDomainSocketAddress
        && destination instanceof UnixDomainSocketAddress
        && fits(source)
        && fits(destination)) {
      return new ProxyHeader(version, Command.PROXY, Family.UNIX, source, destination, tlvs);
    }
    return new ProxyHeader(version, Command.PROXY, Family.UNSPEC, null, null, tlvs);
  }

  private static boolean fits(SocketAddress unix) {
    return ((UnixDomainSocketAddress) unix)
            .getPath()
            .toString()
            .getBytes(java.nio.charset.StandardCharsets.UTF_8)
            .length
        <= 108;
  }

  private static List<Tlv> tlvs(Pair pair, FingerprintTlvs fingerprints) {
    List<Tlv> tlvs = new ArrayList<>(5);
    Connection client = pair.client().connection();
    ProxyHeader received = pair.facts().proxyHeader();
    boolean terminated = client instanceof TlsConnection;
    String alpn =
        terminated
            ? ((TlsConnection) client).applicationProtocol()
            : received == null ? null : received.alpn();
    if (alpn != null) {
      tlvs.add(Tlv.text(Tlv.ALPN, alpn));
    }
    String authority =
        pair.facts().serverName() != null
            ? pair.facts().serverName()
            : received == null ? null : received.authority();
    if (authority != null) {
      tlvs.add(Tlv.text(Tlv.AUTHORITY, authority));
    }
    if (client instanceof TlsConnection tls) {
      tlvs.add(ssl(tls.session()).toTlv());
    }
    Fingerprint fingerprint = pair.facts().fingerprint();
    if (fingerprint != null) {
      if (fingerprints.ja3() != FingerprintTlvs.NOT_SENT) {
        tlvs.add(Tlv.text(fingerprints.ja3(), fingerprint.ja3()));
      }
      if (fingerprints.ja4() != FingerprintTlvs.NOT_SENT) {
        tlvs.add(Tlv.text(fingerprints.ja4(), fingerprint.ja4()));
      }
    }
    return tlvs;
  }

  /** The SSL TLV for a session this listener terminated. */
  static SslInfo ssl(SSLSession session) {
    List<Tlv> sub = new ArrayList<>(3);
    sub.add(Tlv.text(Tlv.SSL_VERSION, session.getProtocol()));
    int client = SslInfo.CLIENT_SSL;
    long verify = 1; // no certificate: non-zero, by the specification
    X509Certificate certificate = clientCertificate(session);
    if (certificate != null) {
      // The JDK refuses the handshake of a certificate that does not verify: this one did. It
      // does not say whether this connection resumed the session, so both bits are set.
      client |= SslInfo.CLIENT_CERT_CONN | SslInfo.CLIENT_CERT_SESS;
      verify = 0;
      String cn = commonName(certificate);
      if (cn != null) {
        sub.add(Tlv.text(Tlv.SSL_CN, cn));
      }
    }
    sub.add(Tlv.text(Tlv.SSL_CIPHER, session.getCipherSuite()));
    return new SslInfo(client, verify, sub);
  }

  private static X509Certificate clientCertificate(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x509 ? x509 : null;
    } catch (SSLPeerUnverifiedException none) {
      return null;
    }
  }

  /** The subject's most specific CN (RFC 2253 escapes undone), or null. */
  static String commonName(X509Certificate certificate) {
    try {
      LdapName name = new LdapName(certificate.getSubjectX500Principal().getName());
      List<Rdn> rdns = name.getRdns(); // least specific first
      for (int i = rdns.size() - 1; i >= 0; i--) {
        if (rdns.get(i).getType().equalsIgnoreCase("CN")) {
          return String.valueOf(rdns.get(i).getValue());
        }
      }
      return null;
    } catch (InvalidNameException e) {
      return null;
    }
  }
}
