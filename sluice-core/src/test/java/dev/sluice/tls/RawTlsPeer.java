package dev.sluice.tls;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLParameters;

/**
 * A misbehaving TLS client for bad-input tests: a blocking socket and a JDK {@link SSLEngine}
 * driven by hand, so a test can complete a real handshake and then send exactly the bytes it wants
 * (half a record, an oversized record header, no close_notify...).
 */
final class RawTlsPeer implements AutoCloseable {
  private final SocketChannel channel;
  private final SSLEngine engine;
  private final ByteBuffer netIn = ByteBuffer.allocate(1 << 17);
  private final ByteBuffer appIn = ByteBuffer.allocate(1 << 17);

  RawTlsPeer(SocketAddress server, TrustMaterial trust, String protocol) throws Exception {
    channel = SocketChannel.open(server);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.trustManagers(), null);
    engine = context.createSSLEngine("localhost", ((InetSocketAddress) server).getPort());
    engine.setUseClientMode(true);
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setProtocols(new String[] {protocol});
    engine.setSSLParameters(parameters);
    engine.beginHandshake();
  }

  /** The first flight (ClientHello) as raw bytes, without sending it. */
  byte[] clientHello() throws Exception {
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), out);
    return Arrays.copyOf(out.array(), out.position());
  }

  /** Runs the whole handshake over the socket. */
  void handshake() throws Exception {
    ByteBuffer empty = ByteBuffer.allocate(0);
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    while (true) {
      HandshakeStatus status = engine.getHandshakeStatus();
      switch (status) {
        case NEED_WRAP -> {
          out.clear();
          SSLEngineResult result = engine.wrap(empty, out);
          send(Arrays.copyOf(out.array(), out.position()));
          if (result.getHandshakeStatus() == HandshakeStatus.FINISHED) {
            return;
          }
        }
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
          netIn.flip();
          SSLEngineResult result = engine.unwrap(netIn, appIn);
          netIn.compact();
          if (result.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
            if (channel.read(netIn) < 0) {
              throw new IOException("server closed during the handshake");
            }
          }
          if (result.getHandshakeStatus() == HandshakeStatus.FINISHED) {
            return;
          }
        }
        case NEED_TASK -> {
          Runnable task;
          while ((task = engine.getDelegatedTask()) != null) {
            task.run();
          }
        }
        default -> {
          return;
        }
      }
    }
  }

  /** One application-data record carrying {@code plaintext}, as raw bytes, not sent. */
  byte[] record(byte[] plaintext) throws Exception {
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.wrap(plaintext), out);
    return Arrays.copyOf(out.array(), out.position());
  }

  /** This side's close_notify alert, as raw bytes, not sent. */
  byte[] closeNotify() throws Exception {
    engine.closeOutbound();
    ByteBuffer out = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.wrap(ByteBuffer.allocate(0), out);
    return Arrays.copyOf(out.array(), out.position());
  }

  /** Sends raw bytes. */
  void send(byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** Closes with a reset (RST). */
  void reset() throws IOException {
    channel.setOption(StandardSocketOptions.SO_LINGER, 0);
    channel.close();
  }

  /** Sends FIN (no close_notify). */
  void shutdownOutput() throws IOException {
    channel.shutdownOutput();
  }

  /**
   * Reads until the server closes; returns the raw bytes received after the handshake (an alert,
   * close_notify...), or what arrived before a reset.
   */
  byte[] readUntilClosed() {
    ByteBuffer all = ByteBuffer.allocate(1 << 16);
    all.put(netIn.flip()); // what arrived behind the handshake's last message
    netIn.clear();
    try {
      while (channel.read(all) >= 0 && all.hasRemaining()) {
        // keep reading
      }
    } catch (IOException reset) {
      // a reset also ends the connection
    }
    return Arrays.copyOf(all.array(), all.position());
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
