package dev.sluice.proxy.proxyprotocol;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.SocketOptions;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsConnection;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * Connects to an upstream that expects a PROXY protocol header: the header is queued on the TCP
 * connection the moment it is up, before anything else, then the connection goes to its handler.
 * With TLS to the upstream that handler is the TLS layer, so the header precedes the ClientHello,
 * in clear, as the PROXY protocol requires (the receiver reads it before its TLS handshake).
 */
public final class HeaderFirst implements ConnectionHandler {
  private final byte[] header;
  private final ConnectionHandler next;

  private HeaderFirst(byte[] header, ConnectionHandler next) {
    this.header = header;
    this.next = next;
  }

  /**
   * Connects to {@code address}, over TLS when {@code tls} is not null, sending {@code header}
   * first when it is not null. The future completes after {@code handler} is active (the TLS
   * handshake done) or fails as {@link EventLoop#connect} and {@link TlsClient#connect} do.
   */
  public static CompletableFuture<?> connect(
      EventLoop loop,
      SocketAddress address,
      SocketOptions options,
      TlsClient tls,
      String tlsServerName,
      byte[] header,
      ConnectionHandler handler) {
    if (header == null) {
      return tls == null
          ? loop.connect(address, options, handler)
          : tls.connect(loop, address, tlsServerName, options, handler);
    }
    if (tls == null) {
      return loop.connect(address, options, new HeaderFirst(header, handler));
    }
    CompletableFuture<TlsConnection> ready = new CompletableFuture<>();
    ConnectionHandler transport = tls.newConnectionHandler(address, tlsServerName, handler, ready);
    loop.connect(address, options, new HeaderFirst(header, transport))
        .whenComplete(
            (connection, error) -> {
              if (error != null) {
                // The TCP connect failed: the TLS layer never started, so nothing else says so.
                ready.completeExceptionally(error);
              }
            });
    return ready;
  }

  @Override
  public void onActive(Connection connection) {
    connection.write(ByteBuffer.wrap(header));
    connection.switchHandler(next);
  }

  @Override
  public void onRead(Connection connection, BorrowedBytes bytes) {
    // Never: the handler is switched before the first read.
  }
}
