package dev.sluice.bench.tls;

import dev.sluice.bench.harness.Impl;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * How a Netty arm sets up TLS: {@code SslHandler} from {@link SslContextBuilder}, the benchmark's
 * certificate and version, and the arm's provider: {@link SslProvider#JDK} (the JDK's SSLEngine, as
 * Sluice uses) for {@link Impl#NETTY}, {@link SslProvider#OPENSSL} (netty-tcnative's BoringSSL) for
 * {@link Impl#NETTY_OPENSSL}.
 */
public final class NettyTls {
  private final BenchTls tls;
  private final SslProvider provider;

  private NettyTls(BenchTls tls, SslProvider provider) {
    this.tls = tls;
    this.provider = provider;
  }

  /**
   * The TLS of Netty arm {@code impl}.
   *
   * @throws IllegalStateException for the OpenSSL arm when netty-tcnative's native library did not
   *     load, with the reason Netty gives
   * @throws IllegalArgumentException when {@code impl} is not a Netty arm
   */
  public static NettyTls of(Impl impl, BenchTls tls) {
    return switch (impl) {
      case NETTY -> new NettyTls(tls, SslProvider.JDK);
      case NETTY_OPENSSL -> {
        requireOpenSsl();
        yield new NettyTls(tls, SslProvider.OPENSSL);
      }
      default -> throw new IllegalArgumentException(impl.displayName() + " is not a Netty arm");
    };
  }

  private static void requireOpenSsl() {
    if (!OpenSsl.isAvailable()) {
      Throwable cause = OpenSsl.unavailabilityCause();
      throw new IllegalStateException(
          "the netty-openssl arm needs OpenSSL from netty-tcnative-boringssl-static, which did not"
              + " load: "
              + cause,
          cause);
    }
  }

  /** A server context presenting the benchmark's certificate. */
  public SslContext server() throws SSLException {
    return SslContextBuilder.forServer(tls.key(), tls.certificate())
        .sslProvider(provider)
        .protocols(tls.version().protocol())
        .build();
  }

  /**
   * A client context trusting the benchmark's certificate, verifying its host name (make handlers
   * with {@code newHandler(alloc, BenchCertificate.HOST, port)}).
   */
  public SslContext client() throws SSLException {
    return SslContextBuilder.forClient()
        .sslProvider(provider)
        .trustManager(tls.certificate())
        .protocols(tls.version().protocol())
        .endpointIdentificationAlgorithm("HTTPS")
        .build();
  }

  /**
   * Fails unless {@code engine}, past its handshake, is this arm's (OpenSSL's engine for the
   * OpenSSL arm, a JDK engine for the other) and negotiated the benchmark's version and suite.
   *
   * @throws IllegalStateException saying what differs
   */
  public void checkNegotiated(SSLEngine engine) {
    boolean openSsl = engine instanceof ReferenceCountedOpenSslEngine;
    if (openSsl != (provider == SslProvider.OPENSSL)) {
      throw new IllegalStateException(
          "SslProvider." + provider + " made an engine of " + engine.getClass().getName());
    }
    tls.checkNegotiated(engine.getSession());
  }

  /**
   * What runs TLS in this arm, for the report: {@link OpenSsl#versionString()} and netty-tcnative's
   * version, or the JDK's engine.
   */
  public String library() {
    return provider == SslProvider.OPENSSL
        ? OpenSsl.versionString() + " (netty-tcnative " + tcnativeVersion() + ")"
        : tls.jdkLibrary();
  }

  /** The Implementation-Version of the jar holding netty-tcnative's classes. */
  private static String tcnativeVersion() {
    try {
      String version =
          Class.forName("io.netty.internal.tcnative.SSL", false, NettyTls.class.getClassLoader())
              .getPackage()
              .getImplementationVersion();
      return version == null ? "of unknown version" : version;
    } catch (ClassNotFoundException e) {
      return "missing";
    }
  }
}
