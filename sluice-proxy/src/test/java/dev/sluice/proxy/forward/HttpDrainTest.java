package dev.sluice.proxy.forward;

import static dev.sluice.proxy.testing.HttpWire.bytes;
import static dev.sluice.proxy.testing.HttpWire.client;
import static dev.sluice.proxy.testing.HttpWire.readHead;
import static dev.sluice.proxy.testing.HttpWire.send;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shutdown's drain on an HTTP listener: a keep-alive connection between requests ends at once
 * (its client is told by a FIN, as after any last response), and one with a request under way gets
 * its response, marked {@code Connection: close}, then the FIN. The drain time is far longer than
 * the test waits: a drain that waited for keep-alive clients would fail it. One loop: both clients
 * share its pool.
 */
class HttpDrainTest {
  private static final Duration LONG_DRAIN = Duration.ofMinutes(5);

  @TempDir Path dir;

  @Test
  void idleKeepAliveClientsAreClosedAndBusyOnesAfterTheirResponse() throws Exception {
    try (ScriptedUpstream upstream = ScriptedUpstream.start();
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    protocol: http
                    cluster: web
                clusters:
                  - name: web
                    upstreams: [{address: "%s"}]
                """
                    .formatted(upstream.address()),
                dir,
                1);
        Socket idle = client(proxy);
        Socket busy = client(proxy)) {
      send(idle, "GET /1 HTTP/1.1\r\nHost: x\r\n\r\n");
      Socket a = upstream.next();
      readHead(a.getInputStream());
      a.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
      assertThat(readHead(idle.getInputStream())).startsWith("HTTP/1.1 200");
      assertThat(idle.getInputStream().readNBytes(2)).isEqualTo(bytes("ok"));

      send(busy, "GET /2 HTTP/1.1\r\nHost: x\r\n\r\n");
      readHead(a.getInputStream()); // the idle client's upstream connection, from the pool

      CompletableFuture<Void> shutdown =
          CompletableFuture.runAsync(() -> proxy.runtime().shutdown(LONG_DRAIN));
      assertThat(idle.getInputStream().read()).as("the idle client's FIN").isEqualTo(-1);
      a.getOutputStream().write(bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
      String head = readHead(busy.getInputStream());
      assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("Connection: close");
      assertThat(busy.getInputStream().readNBytes(2)).isEqualTo(bytes("ok"));
      assertThat(busy.getInputStream().read()).as("the busy client's FIN").isEqualTo(-1);
      idle.shutdownOutput();
      busy.shutdownOutput();
      Await.result(shutdown, "the shutdown, well before its drain time");
      assertThat(proxy.closedPairs())
          .extracting(Pair::cause)
          .containsExactlyInAnyOrder(CloseCause.SHUTDOWN, CloseCause.CLIENT_EOF);
      a.close();
    }
  }
}
