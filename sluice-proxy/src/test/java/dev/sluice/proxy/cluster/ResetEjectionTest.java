package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Resets that a client can provoke do not eject: an upstream that resets once the client sent its
 * request, or after it answered, stays in however often it does; one that resets before any byte
 * moved is ejected, but never the last one in service.
 */
class ResetEjectionTest {
  @TempDir Path dir;

  private static String yaml(ScriptedUpstream... upstreams) {
    StringBuilder list = new StringBuilder();
    for (ScriptedUpstream u : upstreams) {
      list.append(list.isEmpty() ? "" : ", ").append("{address: \"" + u.address() + "\"}");
    }
    return """
        listeners:
          - {name: front, address: "127.0.0.1:0", cluster: c}
        clusters:
          - name: c
            upstreams: [%s]
            passive: {failures: 2, backoff: 1h, maxBackoff: 1h}
        """
        .formatted(list);
  }

  private static Socket client(ProxyFixture proxy) throws IOException {
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    Socket s = new Socket(address.getAddress(), address.getPort());
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    return s;
  }

  /** The connection the proxy made for the latest client, on whichever upstream it chose. */
  private static Socket accepted(ScriptedUpstream... upstreams) throws InterruptedException {
    long deadline = System.nanoTime() + Await.PATIENCE.toNanos();
    while (System.nanoTime() < deadline) {
      for (ScriptedUpstream u : upstreams) {
        if (u.waiting() > 0) {
          return u.next();
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError("the proxy never connected to an upstream");
  }

  private static void awaitForwarding(ProxyFixture proxy) {
    Await.until(
        () -> {
          AtomicInteger forwarding = new AtomicInteger();
          proxy
              .runtime()
              .forEachPair(
                  p -> {
                    if (p.state().equals("forwarding")) {
                      forwarding.incrementAndGet();
                    }
                  });
          return forwarding.get() == 1;
        },
        () -> "the pair to be forwarding");
  }

  private static void reset(Socket upstream) throws IOException {
    upstream.setSoLinger(true, 0);
    upstream.close();
  }

  private static void assertResetOrEnded(Socket client) throws IOException {
    try {
      assertThat(client.getInputStream().read()).isEqualTo(-1);
    } catch (SocketException reset) {
      // the proxy passes the upstream's reset on
    }
    client.close();
  }

  @Test
  void requestsThatMakeTheOnlyUpstreamResetDoNotTakeItFromTheOtherClients() throws Exception {
    try (ScriptedUpstream only = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(only), dir)) {
      // Open together, then reset together: a successful connect in between ends no run.
      List<Socket> bad = new ArrayList<>();
      List<Socket> upstreams = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        Socket client = client(proxy);
        client.getOutputStream().write('!');
        Socket upstream = only.next();
        assertThat(upstream.getInputStream().read()).isEqualTo('!');
        bad.add(client);
        upstreams.add(upstream);
      }
      for (int i = 0; i < bad.size(); i++) {
        reset(upstreams.get(i));
        assertResetOrEnded(bad.get(i));
      }
      proxy.awaitClosed(bad.size());
      try (Socket good = client(proxy)) {
        good.getOutputStream().write('g');
        Socket upstream = only.next();
        assertThat(upstream.getInputStream().read()).isEqualTo('g');
        upstream.getOutputStream().write('G');
        assertThat(good.getInputStream().read()).isEqualTo('G');
        upstream.close();
      }
      assertThat(proxy.upstream("c", only.address()).ejections()).isZero();
      assertThat(proxy.awaitClosed(bad.size() + 1))
          .extracting(Pair::cause)
          .doesNotContain(CloseCause.NO_HEALTHY_UPSTREAM);
    }
  }

  @Test
  void resetsAfterTheClientsRequestOrTheUpstreamsReplyAreNotCounted() throws Exception {
    try (ScriptedUpstream a = ScriptedUpstream.start();
        ScriptedUpstream b = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(a, b), dir)) {
      List<Socket> clients = new ArrayList<>();
      List<Socket> upstreams = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        Socket client = client(proxy);
        Socket upstream;
        if (i % 2 == 0) {
          client.getOutputStream().write('!'); // a request that makes the upstream reset
          upstream = accepted(a, b);
          assertThat(upstream.getInputStream().read()).isEqualTo('!');
        } else {
          upstream = accepted(a, b);
          upstream.getOutputStream().write('w'); // it speaks first, then resets
          assertThat(client.getInputStream().read()).isEqualTo('w');
        }
        clients.add(client);
        upstreams.add(upstream);
      }
      for (int i = 0; i < clients.size(); i++) {
        reset(upstreams.get(i));
        assertResetOrEnded(clients.get(i));
      }
      assertThat(proxy.awaitClosed(clients.size()))
          .extracting(Pair::cause)
          .containsOnly(CloseCause.UPSTREAM_RESET);
      long now = System.nanoTime();
      assertThat(List.of(proxy.upstream("c", a.address()), proxy.upstream("c", b.address())))
          .allSatisfy(t -> assertThat(t.ejections()).isZero())
          .allSatisfy(t -> assertThat(t.available(now)).isTrue());
    }
  }

  @Test
  void resetsBeforeAnyByteEjectButNeverTheLastUpstreamInService() throws Exception {
    try (ScriptedUpstream a = ScriptedUpstream.start();
        ScriptedUpstream b = ScriptedUpstream.start();
        ProxyFixture proxy = ProxyFixture.start(yaml(a, b), dir)) {
      for (int i = 0; i < 8; i++) {
        Socket client = client(proxy); // sends nothing
        Socket upstream = accepted(a, b);
        awaitForwarding(proxy); // its connect done: a reset now is one of a connection
        reset(upstream);
        assertResetOrEnded(client);
      }
      proxy.awaitClosed(8);
      long ejections =
          proxy.upstream("c", a.address()).ejections()
              + proxy.upstream("c", b.address()).ejections();
      assertThat(ejections).as("one of the two out, the other kept in").isEqualTo(1);
      long now = System.nanoTime();
      assertThat(List.of(proxy.upstream("c", a.address()), proxy.upstream("c", b.address())))
          .filteredOn(t -> t.available(now))
          .singleElement()
          .satisfies(t -> assertThat(t.health().lastProblem()).contains("before any byte"));
    }
  }
}
