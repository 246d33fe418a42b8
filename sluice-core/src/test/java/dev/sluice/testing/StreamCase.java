package dev.sluice.testing;

import dev.sluice.net.TransportConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * One cell of the matrix every stream behaviour is tested over: the socket family, plain or TLS
 * (and which version), and the cap on each socket write that forces the partial-write paths. The
 * name reads well as a test case name: {@code unix, tls1.3, write cap 1000}.
 *
 * @param transport TCP or Unix-domain
 * @param security plain bytes or a TLS version
 * @param writeCap the most bytes per socket write ({@link WriteCaps}), 0 for none
 */
public record StreamCase(Transport transport, Security security, int writeCap) {

  /** What runs over the socket. */
  public enum Security {
    PLAIN(null),
    TLS12("TLSv1.2"),
    TLS13("TLSv1.3");

    private final String protocol;

    Security(String protocol) {
      this.protocol = protocol;
    }

    /** The JDK's name of the TLS version, or null for plain. */
    public String protocol() {
      return protocol;
    }

    /** Whether either side may shut down its output and go on reading (not TLS 1.2 on the JDK). */
    public boolean hasHalfClose() {
      return this != TLS12;
    }
  }

  /** Every cell: both transports, plain and both TLS versions, every write cap. */
  public static Stream<StreamCase> all() {
    List<StreamCase> cases = new ArrayList<>();
    for (Transport transport : Transport.values()) {
      for (Security security : Security.values()) {
        WriteCaps.all().forEach(cap -> cases.add(new StreamCase(transport, security, cap)));
      }
    }
    return cases.stream();
  }

  /** The cells whose streams half-close. */
  public static Stream<StreamCase> withHalfClose() {
    return all().filter(c -> c.security.hasHalfClose());
  }

  /** Whether the stream runs over TLS. */
  public boolean tls() {
    return security != Security.PLAIN;
  }

  /** {@code base} with this case's write cap. */
  public TransportConfig config(TransportConfig base) {
    return base.withMaxBytesPerSocketWrite(writeCap);
  }

  @Override
  public String toString() {
    return transport.name().toLowerCase(Locale.ROOT)
        + ", "
        + (tls() ? security.protocol().toLowerCase(Locale.ROOT).replace("v", "") : "plain")
        + ", "
        + (writeCap == 0 ? "no write cap" : "write cap " + writeCap);
  }
}
