package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.admin.Status;
import dev.sluice.proxy.admin.StatusReader;
import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.metrics.Sampler;
import dev.sluice.proxy.runtime.PairObserver;
import dev.sluice.proxy.runtime.ProxyRuntime;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.testing.Await;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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

  private static ProxyRuntime start(String yaml, Resolver resolver, Path dir) throws Exception {
    return ProxyRuntime.start(
        ConfigReader.read(yaml, "test.yaml", dir), PairObserver.NONE, 2, resolver);
  }

  private static void echo(ProxyRuntime proxy, char c) throws Exception {
    InetSocketAddress front = (InetSocketAddress) proxy.listener("front").boundAddress();
    try (Socket s = new Socket(front.getAddress(), front.getPort())) {
      s.setSoTimeout((int) Await.PATIENCE.toMillis());
      s.getOutputStream().write(c);
      assertThat(s.getInputStream().read()).isEqualTo(c);
    }
  }

  @Test
  void aNameThatResolvesToNothingIsTriedAgainWithBackOffUntilItDoes() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1")) {
      AtomicReference<List<InetAddress>> answer = new AtomicReference<>(List.of());
      AtomicInteger lookups = new AtomicInteger();
      Resolver resolver =
          host -> {
            lookups.incrementAndGet();
            if (answer.get().isEmpty()) {
              throw new UnknownHostException(host + ": not yet");
            }
            return answer.get();
          };
      // No resolveInterval: before, a cluster that started empty stayed empty.
      ProxyRuntime proxy =
          start(
              """
              listeners:
                - {name: front, address: "127.0.0.1:0", cluster: svc}
              clusters:
                - name: svc
                  upstreams: [{address: "later.test:%d"}]
              """
                  .formatted(upstream.port()),
              resolver,
              dir);
      try {
        Cluster svc = proxy.clusters().get("svc");
        assertThat(svc.upstreams()).isEmpty();
        assertThat(svc.unresolved())
            .singleElement()
            .satisfies(u -> assertThat(u.address()).isEqualTo("later.test:" + upstream.port()))
            .satisfies(u -> assertThat(u.problem()).contains("not yet"));
        Await.until(() -> lookups.get() >= 2, () -> "a second lookup, after the first back-off");
        answer.set(List.of(InetAddress.getByName("127.0.0.1")));
        Await.until(() -> !svc.upstreams().isEmpty(), () -> "the name to resolve: " + svc);
        assertThat(svc.unresolved()).isEmpty();
        echo(proxy, 'l');
      } finally {
        proxy.shutdown(Duration.ZERO);
      }
    }
  }

  @Test
  void aNameThatDoesNotResolveLeavesTheClusterEmptyAndSaysSo() throws Exception {
    ProxyRuntime proxy =
        start(
            """
            listeners:
              - {name: front, address: "127.0.0.1:0", cluster: svc}
            clusters:
              - name: svc
                upstreams: [{address: "nothing.invalid:80"}]
            """,
            Resolver.SYSTEM,
            dir);
    try {
      Cluster svc = proxy.clusters().get("svc");
      assertThat(svc.upstreams()).isEmpty();
      assertThat(svc.unresolved())
          .extracting(Cluster.Unresolved::address)
          .containsExactly("nothing.invalid:80");
      assertThat(svc.choose(null, List.of()))
          .isInstanceOfSatisfying(
              Cluster.NoneAvailable.class,
              none -> assertThat(none.why()).contains("nothing.invalid:80"));
      try (Sampler sampler = new Sampler(proxy)) {
        StatusReader reader =
            new StatusReader(proxy, sampler, () -> new Status.Reloads(0, 0, 0, null), 0);
        assertThat(reader.read().clusters().getFirst().upstreams())
            .singleElement()
            .satisfies(u -> assertThat(u.state()).isEqualTo("unresolved"))
            .satisfies(u -> assertThat(u.name()).isEqualTo("nothing.invalid:80"));
        assertThat(reader.readiness().reasons())
            .anyMatch(r -> r.contains("nothing.invalid:80 does not resolve"));
      }
    } finally {
      proxy.shutdown(Duration.ZERO);
    }
  }

  @Test
  void aReloadResolvesNamesAgainEvenWhenTheClusterIsUnchanged() throws Exception {
    try (KillableEcho first = KillableEcho.on("127.0.0.1");
        KillableEcho second = KillableEcho.on("127.0.0.2", first.port())) {
      AtomicReference<List<InetAddress>> answer =
          new AtomicReference<>(List.of(InetAddress.getByName("127.0.0.1")));
      String yaml =
          """
          listeners:
            - {name: front, address: "127.0.0.1:0", cluster: svc}
          clusters:
            - name: svc
              upstreams: [{address: "svc.test:%d"}]
          """
              .formatted(first.port());
      ProxyRuntime proxy = start(yaml, host -> answer.get(), dir);
      try {
        echo(proxy, 'a');
        assertThat(first.accepted()).isEqualTo(1);
        answer.set(List.of(InetAddress.getByName("127.0.0.2")));
        Cluster svc = proxy.clusters().get("svc");
        proxy.reload(ConfigReader.read(yaml, "test.yaml", dir));
        assertThat(proxy.clusters().get("svc")).as("unchanged: the same cluster").isSameAs(svc);
        Await.until(
            () -> svc.upstreams().stream().allMatch(u -> u.name().contains("127.0.0.2")),
            () -> "the reload to look the name up again: " + svc.upstreams());
        echo(proxy, 'b');
        assertThat(second.accepted()).isEqualTo(1);
      } finally {
        proxy.shutdown(Duration.ZERO);
      }
    }
  }

  @Test
  void aLookupThatFailsKeepsTheLastAnswerAcrossARebuildingReload() throws Exception {
    try (KillableEcho upstream = KillableEcho.on("127.0.0.1")) {
      AtomicReference<List<InetAddress>> answer =
          new AtomicReference<>(List.of(InetAddress.getByName("127.0.0.1")));
      Resolver resolver =
          host -> {
            if (answer.get().isEmpty()) {
              throw new UnknownHostException(host + ": the resolver is down");
            }
            return answer.get();
          };
      String yaml =
          """
          listeners:
            - {name: front, address: "127.0.0.1:0", cluster: svc}
          clusters:
            - name: svc
              balance: %s
              upstreams: [{address: "svc.test:%d"}]
          """;
      ProxyRuntime proxy = start(yaml.formatted("roundrobin", upstream.port()), resolver, dir);
      try {
        echo(proxy, 'a');
        answer.set(List.of()); // a DNS blip, as a reload rebuilds the cluster
        proxy.reload(
            ConfigReader.read(yaml.formatted("leastconn", upstream.port()), "test.yaml", dir));
        Cluster rebuilt = proxy.clusters().get("svc");
        assertThat(rebuilt.config().balance().toString()).containsIgnoringCase("leastconn");
        assertThat(rebuilt.upstreams()).as("the last answer, kept").hasSize(1);
        assertThat(rebuilt.unresolved()).as("and the failure shown").hasSize(1);
        echo(proxy, 'b');
        assertThat(upstream.accepted()).isEqualTo(2);
      } finally {
        proxy.shutdown(Duration.ZERO);
      }
    }
  }
}
