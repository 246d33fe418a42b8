package dev.sluice.readme;

import dev.sluice.net.ChunkHandler;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.tls.ClientAuth;
import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.TlsClient;
import dev.sluice.tls.TlsClientConfig;
import dev.sluice.tls.TlsConnection;
import dev.sluice.tls.TlsServer;
import dev.sluice.tls.TlsServerConfig;
import dev.sluice.tls.TrustMaterial;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * The README's Java examples, word for word (ReadmeExamplesTest checks that every {@code java}
 * block of the README appears here), so that each one compiles against the current API.
 */
final class ReadmeExamples {
  private ReadmeExamples() {}

  /** The application's handler in the TLS example. */
  static final class MyHandler implements ChunkHandler {
    @Override
    public void onChunk(Connection connection, dev.sluice.memory.Chunk chunk) {
      chunk.release();
    }
  }

  // spotless:off (the examples keep the README's layout)

  /** "The core in one page": a zero-copy echo server and a client. */
  static void echo() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults())) {
      Listener listener = group.listen(new InetSocketAddress("127.0.0.1", 0), SocketOptions.defaults(),
          () -> (connection, bytes) -> connection.writeTransient(bytes.buffer(), null)); // echo
      Connection client = group.connect(listener.localAddress(), SocketOptions.defaults(),
          (ChunkHandler) (connection, chunk) -> {
            System.out.println(chunk.length() + " bytes");
            chunk.release(); // a read above the copy threshold holds a whole slab until released
          }).get();
      client.write(ByteBuffer.wrap("hello".getBytes()));
    }
  }

  /** "TLS": a server and a client, with every option the section names. */
  static void tls(
      EventLoopGroup group,
      SocketAddress address,
      char[] password,
      ConnectionHandler handler)
      throws Exception {
    // Server: a certificate by default, another by SNI, ALPN, optional client certificates.
    TlsServer server = TlsServer.create(
        TlsServerConfig.of(KeyMaterial.fromPem(Path.of("chain.pem"), Path.of("key.pem")))
            .withServerName("api.example.com", KeyMaterial.fromPkcs12(Path.of("api.p12"), password))
            .withApplicationProtocols("h2", "http/1.1")
            .withClientAuth(ClientAuth.OPTIONAL, TrustMaterial.fromPem(Path.of("clients-ca.pem"))));
    Listener listener = server.listen(group, address, SocketOptions.defaults(), MyHandler::new);

    // Client: trust, SNI and host-name verification (on by default), ALPN, client certificate.
    TlsClient client = TlsClient.create(
        TlsClientConfig.trusting(TrustMaterial.fromPem(Path.of("ca.pem")))
            .withServerName("api.example.com"));
    TlsConnection connection = client.connect(group, address, SocketOptions.defaults(), handler).get();
    connection.close();
    listener.close();
  }
  // spotless:on
}
