package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy-wide bound on bytes in flight: 200 clients each push 8 MiB at an upstream that reads
 * nothing at first, then slowly. The copies the proxy holds never pass the bound plus one read per
 * loop, the bound is reached (so the test tests it), and every byte arrives intact. Splicing is
 * off: spliced pages let the kernel's socket buffers take all 1.6 GB (TCP memory was measured at
 * 408,517 pages with it on) and the proxy makes no copy at all, so the bound is never reached.
 */
class InFlightBudgetTest {
  private static final int CLIENTS = 200;
  private static final int BYTES = 8 << 20;
  private static final long BUDGET = 4L << 20;
  private static final int READ = 64 * 1024;
  private static final int LOOPS = 2;

  @TempDir Path dir;

  @Test
  void copiesNeverPassTheBudgetPlusOneReadPerLoopAndNothingIsLost() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.withReceiveBuffer(64 * 1024);
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: up
                clusters:
                  - name: up
                    upstreams: [{address: "%s"}]
                buffers: {readBufferSize: 64KiB, maxBytesInFlight: 4MiB}
                splice: off
                """
                    .formatted(upstream.address()),
                dir)) {
      InetSocketAddress address = (InetSocketAddress) proxy.address("front");
      CountDownLatch startReading = new CountDownLatch(1);
      List<CompletableFuture<String>> verdicts = new ArrayList<>();
      List<Socket> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        Socket client = new Socket(address.getAddress(), address.getPort());
        clients.add(client);
        PayloadPattern pattern = new PayloadPattern(1000 + i);
        Thread.ofVirtual()
            .start(
                () -> {
                  try (OutputStream out = client.getOutputStream()) {
                    // The first 8 bytes say whose stream this is, so the upstream can check it.
                    out.write(ByteBuffer.allocate(8).putLong(pattern.seed()).array());
                    byte[] piece = new byte[256 * 1024];
                    for (int at = 0; at < BYTES; at += piece.length) {
                      pattern.fill(ByteBuffer.wrap(piece), at);
                      out.write(piece);
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
        Socket server = upstream.next();
        CompletableFuture<String> verdict = new CompletableFuture<>();
        verdicts.add(verdict);
        Thread.ofVirtual().start(() -> verdict.complete(verify(server, startReading)));
      }
      Await.until(
          () -> proxy.runtime().budget().used() >= BUDGET,
          () -> "the budget to fill (" + proxy.runtime().budget().used() + " B held)");
      Thread.sleep(200); // full, and the clients keep pushing
      startReading.countDown();
      for (CompletableFuture<String> verdict : verdicts) {
        assertThat(Await.result(verdict, "an upstream stream")).isEqualTo("ok");
      }
      long peak = proxy.runtime().budget().peak();
      assertThat(peak)
          .as("peak bytes in copies, against %d B + one %d B read per loop", BUDGET, READ)
          .isLessThanOrEqualTo(BUDGET + (long) LOOPS * READ)
          .isGreaterThanOrEqualTo(BUDGET);
      for (Socket client : clients) {
        client.close();
      }
    }
  }

  /** Reads one stream slowly once allowed, checking every byte against its sender's pattern. */
  private static String verify(Socket server, CountDownLatch startReading) {
    try (server;
        InputStream in = server.getInputStream()) {
      startReading.await();
      long seed = ByteBuffer.wrap(in.readNBytes(8)).getLong();
      PatternVerifier verifier = new PayloadPattern(seed).verifier();
      byte[] buffer = new byte[32 * 1024];
      long received = 0;
      while (received < BYTES) {
        int n = in.read(buffer, 0, (int) Math.min(buffer.length, BYTES - received));
        if (n < 0) {
          return "ended after " + received + " B";
        }
        verifier.update(ByteBuffer.wrap(buffer, 0, n));
        received += n;
      }
      return verifier.finish(BYTES) ? "ok" : verifier.failure();
    } catch (Exception e) {
      return e.toString();
    }
  }
}
