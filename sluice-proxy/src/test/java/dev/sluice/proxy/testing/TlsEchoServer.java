package dev.sluice.proxy.testing;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.TlsConnection;
import dev.sluice.tls.TlsServer;
import dev.sluice.tls.TlsServerConfig;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;

/**
 * A TLS echo upstream on the core's TLS, on loopback: for tests of passthrough and re-encryption.
 * It records the server name its first client asked for.
 */
public final class TlsEchoServer implements AutoCloseable {
  /** The SNI of the first connection (null when it sent none). */
  public final CompletableFuture<String> sawServerName = new CompletableFuture<>();

  private final EventLoopGroup group =
      new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
  private final Listener listener;

  public TlsEchoServer(KeyMaterial key) throws Exception {
    listener =
        TlsServer.create(TlsServerConfig.of(key))
            .listen(
                group,
                new InetSocketAddress("127.0.0.1", 0),
                SocketOptions.defaults(),
                () ->
                    new ConnectionHandler() {
                      @Override
                      public void onActive(Connection c) {
                        var session = (ExtendedSSLSession) ((TlsConnection) c).session();
                        sawServerName.complete(
                            session.getRequestedServerNames().isEmpty()
                                ? null
                                : ((SNIHostName) session.getRequestedServerNames().getFirst())
                                    .getAsciiName());
                      }

                      @Override
                      public void onRead(Connection c, BorrowedBytes bytes) {
                        c.writeTransient(bytes.buffer(), null);
                      }
                    });
  }

  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  @Override
  public void close() {
    listener.close();
    group.close();
  }
}
