package dev.sluice.bench.tls;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import javax.net.ssl.SSLException;

/**
 * How the Netty arms set up TLS: {@code SslHandler} from {@link SslContextBuilder} with {@link
 * SslProvider#JDK} (the JDK's SSLEngine, as Sluice uses), the benchmark's version.
 */
public final class NettyTls {
  private NettyTls() {}

  /** A server context presenting the benchmark's certificate. */
  public static SslContext server(BenchTls tls) throws SSLException {
    return SslContextBuilder.forServer(tls.key(), tls.certificate())
        .sslProvider(SslProvider.JDK)
        .protocols(tls.version().protocol())
        .build();
  }

  /**
   * A client context trusting the benchmark's certificate, verifying its host name (make handlers
   * with {@code newHandler(alloc, BenchCertificate.HOST, port)}).
   */
  public static SslContext client(BenchTls tls) throws SSLException {
    return SslContextBuilder.forClient()
        .sslProvider(SslProvider.JDK)
        .trustManager(tls.certificate())
        .protocols(tls.version().protocol())
        .endpointIdentificationAlgorithm("HTTPS")
        .build();
  }
}
