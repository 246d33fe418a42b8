package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.runtime.PairObserver;
import dev.sluice.proxy.runtime.ProxyRuntime;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.testing.Await;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upstream given by host name is resolved again on its interval: a changed answer adds the new
 * address and drains the old one, and a pair open on the old one keeps going. The resolver is the
 * test's own, so no traffic leaves the machine (127.0.0.1 and 127.0.0.2 are both loopback).
 */
class DnsTest {
  @TempDir Path dir;

  @Test
  void aChangedAnswerMovesNewConnectionsAndKeepsTheOpenOnes() throws Exception {
    try (KillableEcho first = KillableEcho.on("127.0.0.1");
        KillableEcho second = KillableEcho.on("127.0.0.2", first.port())) {
      AtomicReference<List<InetAddress>> answer =
          new AtomicReference<>(List.of(InetAddress.getByName("127.0.0.1")));
      Resolver resolver =
          host -> {
            assertThat(host).isEqualTo("svc.test");
            return answer.get();
          };
      ProxyRuntime proxy =
          ProxyRuntime.start(
              ConfigReader.read(
                  """
                  listeners:
                    - {name: front, address: "127.0.0.1:0", cluster: svc}
                  clusters:
                    - name: svc
                      upstreams: [{address: "svc.test:%d"}]
                      resolveInterval: 100ms
                  """
                      .formatted(first.port()),
                  "test.yaml",
                  dir),
              PairObserver.NONE,
              2,
              resolver);
      try {
        InetSocketAddress front = (InetSocketAddress) proxy.listener("front").boundAddress();
        Socket held = new Socket(front.getAddress(), front.getPort());
        held.setSoTimeout((int) Await.PATIENCE.toMillis());
        held.getOutputStream().write('h');
        assertThat(held.getInputStream().read()).isEqualTo('h');
        assertThat(first.accepted()).isEqualTo(1);

        answer.set(List.of(InetAddress.getByName("127.0.0.2")));
        Cluster svc = proxy.clusters().get("svc");
        Await.until(
            () -> svc.upstreams().stream().allMatch(u -> u.name().contains("127.0.0.2")),
            () -> "the new answer: " + svc.upstreams());
        try (Socket fresh = new Socket(front.getAddress(), front.getPort())) {
          fresh.setSoTimeout((int) Await.PATIENCE.toMillis());
          fresh.getOutputStream().write('n');
          assertThat(fresh.getInputStream().read()).isEqualTo('n');
        }
        assertThat(second.accepted()).isEqualTo(1);
        held.getOutputStream().write('k');
        assertThat(held.getInputStream().read())
            .as("the open pair on the old address")
            .isEqualTo('k');
        held.close();
      } finally {
        proxy.shutdown(Duration.ZERO);
      }
    }
  }
}
