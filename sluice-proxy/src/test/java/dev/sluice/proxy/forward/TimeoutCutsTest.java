package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timers that cut a pair judge what it is doing, not its age, and never end a stream with a FIN
 * that looks complete: the half-close timeout is the inactivity of the direction still open; the
 * write-stall timeout cuts a peer that takes none of what is pending for it (and only such a peer);
 * a pair cut with bytes pending is reset.
 */
class TimeoutCutsTest {
  @TempDir Path dir;

  private static String yaml(String upstream, String timeouts) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: up
        timeouts: {%s}
        clusters:
          - name: up
            upstreams: [{address: "%s"}]
        """
        .formatted(timeouts, upstream);
  }

  private record Opened(Socket client, Socket server) implements AutoCloseable {
    @Override
    public void close() throws IOException {
      client.close();
      server.close();
    }
  }

  /** A pair carrying one byte each way; the client's receive buffer as small as asked (0: any). */
  private static Opened open(ProxyFixture proxy, ScriptedUpstream upstream, int receiveBuffer)
      throws Exception {
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    Socket client = new Socket();
    if (receiveBuffer > 0) {
      client.setReceiveBufferSize(receiveBuffer);
    }
    client.connect(address);
    client.setSoTimeout((int) Await.PATIENCE.toMillis());
    client.getOutputStream().write('c');
    Socket server = upstream.next();
    server.setSoTimeout((int) Await.PATIENCE.toMillis());
    assertThat(server.getInputStream().read()).isEqualTo('c');
    server.getOutputStream().write('u');
    assertThat(client.getInputStream().read()).isEqualTo('u');
    return new Opened(client, server);
  }

  /** Writes {@code bytes} of a pattern to {@code socket} on a virtual thread. */
  private static CompletableFuture<Void> send(Socket socket, PayloadPattern pattern, int bytes) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                socket.getOutputStream().write(pattern.bytes(0, bytes));
                done.complete(null);
              } catch (Throwable t) {
                done.completeExceptionally(t);
              }
            });
    return done;
  }

  /** Reads until the end of the stream; a reset is thrown. Returns the bytes read. */
  private static long drain(InputStream in) throws IOException {
    byte[] buffer = new byte[64 * 1024];
    long total = 0;
    int n;
    while ((n = in.read(buffer)) >= 0) {
      total += n;
    }
    return total;
  }

  @Test
  void aDownloadAfterTheClientsFinRunsOnWhileItMovesAndAQuietOneIsCut() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), "halfClose: 600ms"), dir);
        Opened pair = open(proxy, upstream, 0)) {
      pair.client().shutdownOutput(); // the request is in: the client half-closes
      assertThat(pair.server().getInputStream().read()).isEqualTo(-1);
      // The response takes 2 s, far longer than halfClose, but never pauses for 600 ms.
      PayloadPattern pattern = new PayloadPattern(41);
      int piece = 64 * 1024;
      int pieces = 8;
      CompletableFuture<Void> served =
          CompletableFuture.runAsync(
              () -> {
                try {
                  for (int i = 0; i < pieces; i++) {
                    pair.server().getOutputStream().write(pattern.bytes((long) i * piece, piece));
                    Thread.sleep(250);
                  }
                  pair.server().shutdownOutput();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              },
              Thread::startVirtualThread);
      PatternVerifier verifier = pattern.verifier();
      byte[] buffer = new byte[16 * 1024];
      int n;
      while ((n = pair.client().getInputStream().read(buffer)) >= 0) {
        verifier.update(ByteBuffer.wrap(buffer, 0, n));
      }
      served.join();
      assertThat(verifier.finish((long) piece * pieces)).as(verifier.failure()).isTrue();
      Pair done = proxy.awaitClosed(1).getFirst();
      assertThat(done.cause()).isEqualTo(CloseCause.CLIENT_EOF);
    }

    // The same, but the upstream goes quiet after the client's FIN: cut after 600 ms of nothing.
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(upstream.address(), "halfClose: 600ms"), dir);
        Opened pair = open(proxy, upstream, 0)) {
      pair.client().shutdownOutput();
      assertThat(pair.server().getInputStream().read()).isEqualTo(-1);
      Pair done = proxy.awaitClosed(1).getFirst();
      assertThat(done.cause()).isEqualTo(CloseCause.HALF_CLOSE_TIMEOUT);
      assertThat(done.causeDetail()).contains("client ended");
    }
  }

  @Test
  void aPairCutWithBytesPendingIsResetNeverEndedAsIfComplete() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(upstream.address(), "maxConnectionDuration: 1s"), dir);
        Opened pair = open(proxy, upstream, 16 * 1024)) {
      int size = 32 << 20; // far more than the sockets' buffers hold: bytes wait at the proxy
      CompletableFuture<Void> sent = send(pair.server(), new PayloadPattern(5), size);
      Pair done = proxy.awaitClosed(1).getFirst();
      assertThat(done.cause()).isEqualTo(CloseCause.MAX_DURATION);
      // The client reads what reached it, then a reset: never an end of stream after a part.
      assertThatThrownBy(() -> drain(pair.client().getInputStream()))
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
      assertThat(sent).failsWithin(Await.PATIENCE);
      assertThat(proxy.runtime().budget().used()).isZero();
    }
  }

  @Test
  void aPeerThatTakesNothingIsCutByTheWriteStallAndASlowOneIsNot() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(yaml(upstream.address(), "writeStall: 700ms"), dir)) {
      // A slow reader that keeps taking bytes (64 KiB every 100 ms for 3 s) is never cut.
      try (Opened slow = open(proxy, upstream, 0)) {
        int size = 2 << 20;
        PayloadPattern pattern = new PayloadPattern(17);
        CompletableFuture<Void> sent = send(slow.server(), pattern, size);
        PatternVerifier verifier = pattern.verifier();
        byte[] buffer = new byte[64 * 1024];
        long received = 0;
        while (received < size) {
          int n = slow.client().getInputStream().read(buffer);
          verifier.update(ByteBuffer.wrap(buffer, 0, n));
          received += n;
          Thread.sleep(100);
        }
        sent.join();
        assertThat(verifier.finish(size)).as(verifier.failure()).isTrue();
        assertThat(proxy.closedPairs()).as("pairs cut while their reader was slow").isEmpty();
      }
      proxy.awaitClosed(1);

      // A client that reads nothing while the upstream sends: reset once 700 ms pass with no
      // byte taken, and what the proxy held goes back to the budget.
      try (Opened stuck = open(proxy, upstream, 16 * 1024)) {
        CompletableFuture<Void> sent = send(stuck.server(), new PayloadPattern(3), 32 << 20);
        Pair cut = proxy.awaitClosed(2).get(1);
        assertThat(cut.cause()).isEqualTo(CloseCause.WRITE_STALL_TIMEOUT);
        assertThat(cut.causeDetail()).contains("client took none");
        assertThat(sent).failsWithin(Await.PATIENCE);
        assertThatThrownBy(() -> drain(stuck.client().getInputStream()))
            .isInstanceOf(SocketException.class)
            .hasMessageContaining("reset");
        assertThat(proxy.runtime().budget().used()).isZero();
      }
    }
  }
}
