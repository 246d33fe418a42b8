package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pair's life with real sockets at both ends, the test playing client and upstream by hand:
 * half-close each way, a reset on either leg, idle timeouts that cut only what is idle, failed
 * connects, slow readers, limits. Every close is checked for its classified cause.
 */
class PairLifecycleTest {
  @TempDir Path dir;

  private static String yaml(String upstream, String extra) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: up
        %s
        clusters:
          - name: up
            upstreams: [{address: "%s"}]
        """
        .formatted(extra, upstream);
  }

  private static Socket connect(ProxyFixture proxy) throws IOException {
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout((int) Await.PATIENCE.toMillis());
    return socket;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static String readAll(InputStream in) throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
  }

  @Test
  void theClientHalfClosesAndTheUpstreamGoesOnSending() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), ""), dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write(ascii("request"));
      client.shutdownOutput();
      try (Socket server = upstream.next()) {
        assertThat(readAll(server.getInputStream())).isEqualTo("request"); // then its EOF
        byte[] reply = new PayloadPattern(3).bytes(0, 1 << 20);
        server.getOutputStream().write(reply); // after the client's end of input
        server.shutdownOutput();
        assertThat(client.getInputStream().readAllBytes()).isEqualTo(reply);
      }
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.CLIENT_EOF);
      assertThat(pair.client().bytesRead()).isEqualTo(7);
      assertThat(pair.upstream().bytesRead()).isEqualTo(1 << 20);
    }
  }

  @Test
  void theUpstreamHalfClosesAndTheClientGoesOnSending() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), ""), dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write(ascii("hello"));
      try (Socket server = upstream.next()) {
        server.getOutputStream().write(ascii("banner"));
        server.shutdownOutput();
        assertThat(readAll(client.getInputStream())).isEqualTo("banner");
        client.getOutputStream().write(ascii(" and more after your end"));
        client.shutdownOutput();
        assertThat(readAll(server.getInputStream())).isEqualTo("hello and more after your end");
      }
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.UPSTREAM_EOF);
    }
  }

  @Test
  void aClientResetResetsTheUpstreamAtOnce() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), ""), dir);
        Socket server = openPair(proxy, upstream)) {
      Pair pair;
      try (Socket client = lastClient) {
        client.setSoLinger(true, 0); // close() sends RST
      }
      assertThatThrownBy(() -> server.getInputStream().read())
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
      pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.CLIENT_RESET);
    }
  }

  @Test
  void anUpstreamResetResetsTheClientAtOnce() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), ""), dir)) {
      Socket server = openPair(proxy, upstream);
      try (Socket client = lastClient) {
        server.setSoLinger(true, 0);
        server.close();
        assertThatThrownBy(() -> client.getInputStream().read())
            .isInstanceOf(SocketException.class)
            .hasMessageContaining("reset");
      }
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.UPSTREAM_RESET);
    }
  }

  private Socket lastClient;

  /** Opens a pair and checks it carries a byte each way; the client is in {@link #lastClient}. */
  private Socket openPair(ProxyFixture proxy, ScriptedUpstream upstream) throws Exception {
    lastClient = connect(proxy);
    lastClient.getOutputStream().write('c');
    Socket server = upstream.next();
    server.setSoTimeout((int) Await.PATIENCE.toMillis());
    assertThat(server.getInputStream().read()).isEqualTo('c');
    server.getOutputStream().write('u');
    assertThat(lastClient.getInputStream().read()).isEqualTo('u');
    return server;
  }

  @Test
  void anIdlePairIsCutAndABusyOrBackpressuredOneIsNot() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(upstream.address(), "timeouts: {idle: 400ms}"), dir)) {
      // An idle pair: cut after 400 ms, the client sees the end of its stream.
      Socket idleServer = openPair(proxy, upstream);
      Socket idleClient = lastClient;
      assertThat(idleClient.getInputStream().read()).isEqualTo(-1);
      assertThat(idleServer.getInputStream().read()).isEqualTo(-1);
      assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.IDLE_TIMEOUT);

      // A backpressured pair: the upstream sends 32 MiB, the client reads nothing for 1.5 s.
      Socket server = openPair(proxy, upstream);
      Socket client = lastClient;
      byte[] big = new PayloadPattern(9).bytes(0, 32 << 20);
      Thread writer =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      server.getOutputStream().write(big);
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
      Thread.sleep(1500);
      assertThat(proxy.closedPairs()).as("pairs closed while backpressured").hasSize(1);
      byte[] got = client.getInputStream().readNBytes(big.length);
      assertThat(got).isEqualTo(big);
      writer.join();

      // A busy pair: a byte each way every 100 ms for 1.5 s outlives the 400 ms timeout.
      for (int i = 0; i < 15; i++) {
        client.getOutputStream().write(i);
        assertThat(server.getInputStream().read()).isEqualTo(i);
        Thread.sleep(100);
      }
      assertThat(proxy.closedPairs()).as("pairs closed while busy").hasSize(1);
      assertThat(client.getInputStream().read()).as("then idle: cut").isEqualTo(-1);
      assertThat(proxy.awaitClosed(2).get(1).cause()).isEqualTo(CloseCause.IDLE_TIMEOUT);
      server.close();
      client.close();
      idleServer.close();
      idleClient.close();
    }
  }

  @Test
  void aRefusedConnectClosesTheClientWithThatCause() throws Exception {
    int port = FreePorts.loopback(); // nobody listens here now
    try (ProxyFixture proxy = ProxyFixture.start(yaml("127.0.0.1:" + port, ""), dir);
        Socket client = connect(proxy)) {
      int read;
      try {
        read = client.getInputStream().read();
      } catch (SocketException reset) {
        read = -1;
      }
      assertThat(read).isEqualTo(-1);
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.CONNECT_REFUSED);
      assertThat(pair.causeDetail()).contains("127.0.0.1:" + port);
    }
  }

  @Test
  void anUpstreamThatNeverAcceptsTimesOutTheConnect() throws Exception {
    // A full accept queue: the kernel drops further SYNs, so a connect hangs until its timeout.
    try (ServerSocket deaf = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      List<Socket> filling = new ArrayList<>();
      try {
        for (int i = 0; i < 8; i++) {
          Socket s = new Socket();
          try {
            s.connect(deaf.getLocalSocketAddress(), 200);
            filling.add(s);
          } catch (IOException full) {
            s.close();
            break;
          }
        }
        try (ProxyFixture proxy =
                ProxyFixture.start(
                    yaml("127.0.0.1:" + deaf.getLocalPort(), "timeouts: {connect: 300ms}"), dir);
            Socket client = connect(proxy)) {
          int read;
          try {
            read = client.getInputStream().read();
          } catch (SocketException reset) {
            read = -1;
          }
          assertThat(read).isEqualTo(-1);
          assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.CONNECT_TIMEOUT);
        }
      } finally {
        for (Socket s : filling) {
          s.close();
        }
      }
    }
  }

  @Test
  void aSlowClientHoldsAtMostOneReadInFlightAndLosesNothing() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(upstream.address(), "buffers: {readBufferSize: 16KiB}"), dir)) {
      Socket server = openPair(proxy, upstream);
      Socket client = lastClient;
      int size = 8 << 20;
      PayloadPattern pattern = new PayloadPattern(11);
      Thread writer =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      server.getOutputStream().write(pattern.bytes(0, size));
                      server.shutdownOutput();
                    } catch (IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
      PatternVerifier verifier = pattern.verifier();
      byte[] buffer = new byte[4096];
      long received = 0;
      int n;
      while ((n = client.getInputStream().read(buffer)) >= 0) {
        verifier.update(ByteBuffer.wrap(buffer, 0, n));
        received += n;
        if (received % (256 << 10) < 4096) {
          Thread.sleep(20); // a slow reader: the upstream outruns it
        }
      }
      writer.join();
      assertThat(verifier.finish(size)).as(verifier.failure()).isTrue();
      assertThat(proxy.runtime().budget().peak())
          .as("bytes held in copies for one slow reader")
          .isLessThanOrEqualTo(16 * 1024);
      client.close();
      server.close();
    }
  }

  @Test
  void beyondMaxConnectionsNewClientsAreRefusedAndTheOthersFlow() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(upstream.address(), "    maxConnections: 2"), dir)) {
      Socket first = openPair(proxy, upstream);
      Socket firstClient = lastClient;
      Socket second = openPair(proxy, upstream);
      Socket secondClient = lastClient;
      try (Socket refused = connect(proxy)) {
        assertThat(refused.getInputStream().read()).isEqualTo(-1);
      }
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.LIMIT_REACHED);
      assertThat(upstream.waiting()).as("no upstream connection for a refused client").isZero();
      // The bystanders are undisturbed.
      firstClient.getOutputStream().write('x');
      assertThat(first.getInputStream().read()).isEqualTo('x');
      second.getOutputStream().write('y');
      assertThat(secondClient.getInputStream().read()).isEqualTo('y');
      assertThat(proxy.listener("front").stats().closedCount(CloseCause.LIMIT_REACHED))
          .isEqualTo(1);
      for (Socket s : List.of(first, firstClient, second, secondClient)) {
        s.close();
      }
    }
  }

  @Test
  void anUpstreamThatAcceptsButNeverAnswersIsAnIdleTimeoutNotAConnectTimeout() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(
                yaml(upstream.address(), "timeouts: {connect: 200ms, idle: 500ms}"), dir);
        Socket client = connect(proxy)) {
      client.getOutputStream().write(ascii("anyone there?"));
      Socket silent = upstream.next(); // accepted, and then nothing
      try {
        assertThat(client.getInputStream().read()).isEqualTo(-1);
        Pair pair = proxy.awaitClosed(1).getFirst();
        assertThat(pair.cause()).isEqualTo(CloseCause.IDLE_TIMEOUT);
        assertThat(pair.facts().target().name()).isEqualTo(upstream.address());
      } finally {
        silent.close();
      }
    }
  }
}
