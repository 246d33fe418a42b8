package dev.sluice.proxy.testing;

import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A real client of the proxy in the test's JVM: a blocking JDK socket (TCP or Unix) or SSLSocket
 * (TLS 1.3 or 1.2, verifying the test PKI's certificate), on a virtual thread. It sends a patterned
 * stream, half-closes, and checks every byte that comes back against the pattern until the end of
 * the stream.
 */
public final class EchoClient {
  private EchoClient() {}

  /** What came back. */
  public record Result(long sent, long received, String failure) {
    public boolean ok() {
      return failure == null && received == sent;
    }
  }

  /** How to reach the proxy. */
  public enum Security {
    PLAIN,
    /** TLS 1.3. */
    TLS,
    /** TLS 1.2: no half-close (close_notify ends both directions), renegotiation exists. */
    TLS12;

    /** Whether this is TLS of either version. */
    public boolean tls() {
      return this != PLAIN;
    }
  }

  /**
   * Sends {@code bytes} of the stream of {@code seed} and verifies the echo. The client half-closes
   * once it has sent all and reads to the end of the stream; over TLS 1.2, which has no half-close
   * (a close_notify ends both directions), it reads the whole echo first and then closes.
   */
  public static Result echo(
      SocketAddress proxy, Security security, String serverName, long bytes, long seed)
      throws Exception {
    boolean halfClose = security != Security.TLS12;
    try (Streams s = open(proxy, security, serverName)) {
      PayloadPattern pattern = new PayloadPattern(seed);
      CompletableFuture<Void> sent = new CompletableFuture<>();
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  byte[] piece = new byte[64 * 1024];
                  for (long at = 0; at < bytes; ) {
                    int n = (int) Math.min(piece.length, bytes - at);
                    pattern.fill(java.nio.ByteBuffer.wrap(piece, 0, n), at);
                    s.out.write(piece, 0, n);
                    at += n;
                  }
                  s.out.flush();
                  if (halfClose) {
                    s.shutdownOutput();
                  }
                  sent.complete(null);
                } catch (Throwable t) {
                  sent.completeExceptionally(t);
                }
              });
      PatternVerifier verifier = pattern.verifier();
      byte[] buffer = new byte[64 * 1024];
      long received = 0;
      while (halfClose || received < bytes) {
        int want = halfClose ? buffer.length : (int) Math.min(buffer.length, bytes - received);
        int n = s.in.read(buffer, 0, want);
        if (n < 0) {
          break;
        }
        verifier.update(java.nio.ByteBuffer.wrap(buffer, 0, n));
        received += n;
      }
      sent.get();
      verifier.finish(bytes);
      return new Result(bytes, received, verifier.failure());
    }
  }

  /** A connection's two streams. */
  public static final class Streams implements AutoCloseable {
    public final InputStream in;
    public final OutputStream out;
    private final java.io.Closeable socket;
    private final Runnable shutdownOutput;

    Streams(InputStream in, OutputStream out, java.io.Closeable socket, Runnable shutdownOutput) {
      this.in = in;
      this.out = out;
      this.socket = socket;
      this.shutdownOutput = shutdownOutput;
    }

    public void shutdownOutput() {
      shutdownOutput.run();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /** Opens a connection to {@code proxy}, verifying the certificate's host name. */
  public static Streams open(SocketAddress proxy, Security security, String serverName)
      throws Exception {
    return open(proxy, security, serverName, true);
  }

  /** Opens a connection to {@code proxy}; TLS sends {@code serverName} as SNI. */
  public static Streams open(
      SocketAddress proxy, Security security, String serverName, boolean verifyHostName)
      throws Exception {
    if (security.tls()) {
      InetSocketAddress inet = (InetSocketAddress) proxy;
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, TestPki.get().caTrust().trustManagers(), null);
      SSLSocket socket =
          (SSLSocket) context.getSocketFactory().createSocket(inet.getAddress(), inet.getPort());
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setProtocols(new String[] {security == Security.TLS12 ? "TLSv1.2" : "TLSv1.3"});
      if (verifyHostName) {
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
      }
      parameters.setServerNames(
          serverName == null ? List.of() : List.of(new SNIHostName(serverName)));
      socket.setSSLParameters(parameters);
      socket.startHandshake();
      return new Streams(
          socket.getInputStream(),
          socket.getOutputStream(),
          socket,
          () -> {
            try {
              socket.shutdownOutput();
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          });
    }
    SocketChannel channel =
        proxy instanceof UnixDomainSocketAddress
            ? SocketChannel.open(StandardProtocolFamily.UNIX)
            : SocketChannel.open();
    channel.connect(proxy);
    return new Streams(
        Channels.newInputStream(channel),
        Channels.newOutputStream(channel),
        channel,
        () -> {
          try {
            channel.shutdownOutput();
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }
}
