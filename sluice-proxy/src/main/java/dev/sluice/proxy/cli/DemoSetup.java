package dev.sluice.proxy.cli;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.net.WriteListener;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What the embedded default runs beside the proxy: a built-in echo upstream, and a self-signed
 * certificate for localhost made at start ({@link DemoCertificate}) in a directory deleted at exit.
 */
final class DemoSetup implements AutoCloseable {
  private final Path dir;
  private final EventLoopGroup group;
  private final Listener echo;

  private DemoSetup(Path dir, EventLoopGroup group, Listener echo) {
    this.dir = dir;
    this.group = group;
    this.echo = echo;
  }

  static DemoSetup start() throws IOException {
    Path dir = Files.createTempDirectory("sluice-demo");
    DemoCertificate.write(dir);
    EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    Listener echo =
        group.listen(new InetSocketAddress("127.0.0.1", 0), SocketOptions.defaults(), Echo::new);
    return new DemoSetup(dir, group, echo);
  }

  /** The demo configuration: a plain and a TLS listener, both to the built-in echo upstream. */
  String yaml() {
    int port = ((InetSocketAddress) echo.localAddress()).getPort();
    return """
        # The embedded default: ./sluice with no arguments runs this.
        listeners:
          - name: demo
            address: 127.0.0.1:7000
            cluster: echo
          - name: demo-tls
            address: 127.0.0.1:7443
            cluster: echo
            tls: {certificates: [{cert: localhost.pem, key: localhost.key}]}
        clusters:
          - name: echo
            upstreams: [{address: 127.0.0.1:%d}]   # the built-in echo upstream
        timeouts: {connect: 5s, idle: 1h, handshake: 10s, drain: 5s}
        buffers: {readBufferSize: 64KiB, maxBytesInFlight: 64MiB}
        admin: {address: 127.0.0.1:9000}   # status page, /metrics, /ready, /live, /dump
        accessLog: stdout                  # a JSON line per closed connection
        """
        .formatted(port);
  }

  Path dir() {
    return dir;
  }

  @Override
  public void close() {
    echo.close();
    group.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory: the system cleans it eventually
    }
  }

  /** Echoes with backpressure: stops reading while its echo is not drained. */
  private static final class Echo implements ConnectionHandler, WriteListener {
    private Connection connection;

    @Override
    public void onActive(Connection c) {
      connection = c;
    }

    @Override
    public void onRead(Connection c, BorrowedBytes bytes) {
      c.writeTransient(bytes.buffer(), this);
      if (c.pendingWriteBytes() > 0) {
        c.pauseReading();
      }
    }

    @Override
    public void onWriteComplete(Throwable error) {
      if (error == null && connection.pendingWriteBytes() == 0) {
        connection.resumeReading();
      }
    }
  }
}
