package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ClusterConfig.CheckType;
import dev.sluice.proxy.config.ClusterConfig.HealthCheck;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a cluster rebuilt by a reload takes over from the running one, without sockets: for the same
 * address, its counters always, its health when connections to it are made the same way.
 */
class CarryOverTest {
  private static final HealthCheck CHECK =
      new HealthCheck(
          CheckType.TCP, Duration.ofSeconds(1), Duration.ofSeconds(1), 2, 2, null, null);

  private static ClusterConfig config(
      ClusterConfig.Balance balance, HealthCheck check, ProxyHeader.Version proxyProtocol) {
    List<ClusterConfig.UpstreamConfig> upstreams =
        List.of(
            new ClusterConfig.UpstreamConfig(new Endpoint.Tcp("127.0.0.1", 7001), 1),
            new ClusterConfig.UpstreamConfig(new Endpoint.Tcp("127.0.0.1", 7002), 1));
    return new ClusterConfig(
        "c",
        upstreams,
        balance,
        check,
        ClusterConfig.PassiveHealth.DEFAULTS,
        ClusterConfig.Retries.DEFAULTS,
        Duration.ZERO,
        Duration.ZERO,
        null,
        proxyProtocol);
  }

  private static Cluster running() {
    Cluster c = new Cluster(config(ClusterConfig.Balance.ROUNDROBIN, CHECK, null));
    UpstreamTarget down = c.upstreams().get(1);
    down.health().checkFailed(0, "refused");
    down.health().checkFailed(0, "refused");
    c.upstreams().getFirst().connected(); // an open pair
    return c;
  }

  private static Cluster rebuilt(Cluster previous, ClusterConfig config) {
    Cluster next = new Cluster(config, Resolver.SYSTEM, null, previous);
    next.adoptHealth();
    return next;
  }

  @Test
  void healthAndCountersCarryOverForTheSameAddress() {
    Cluster old = running();
    Cluster next = rebuilt(old, config(ClusterConfig.Balance.LEASTCONN, CHECK, null));
    long now = System.nanoTime();
    assertThat(next.upstreams().get(1).health().state(now)).isEqualTo(Health.State.DOWN);
    assertThat(next.upstreams().getFirst().active()).isEqualTo(1);
    old.upstreams().getFirst().released(CloseCause.CLIENT_EOF, false); // the open pair ends
    assertThat(next.upstreams().getFirst().active()).isZero();
    assertThat(next.upstreams().getFirst().connects()).isEqualTo(1);
  }

  @Test
  void withoutACheckAnyMoreADownUpstreamIsUp() {
    Cluster next = rebuilt(running(), config(ClusterConfig.Balance.ROUNDROBIN, null, null));
    assertThat(next.upstreams().get(1).available(System.nanoTime())).isTrue();
  }

  @Test
  void connectionsMadeAnotherWayStartWithFreshHealthButKeepTheirCounts() {
    Cluster next =
        rebuilt(running(), config(ClusterConfig.Balance.ROUNDROBIN, CHECK, ProxyHeader.Version.V2));
    assertThat(next.upstreams().get(1).available(System.nanoTime())).isTrue();
    assertThat(next.upstreams().getFirst().active()).isEqualTo(1);
  }

  @Test
  void aNewAddressStartsFresh() {
    Cluster old = running();
    ClusterConfig moved =
        new ClusterConfig(
            "c",
            List.of(new ClusterConfig.UpstreamConfig(new Endpoint.Tcp("127.0.0.1", 7003), 1)),
            ClusterConfig.Balance.ROUNDROBIN,
            CHECK,
            ClusterConfig.PassiveHealth.DEFAULTS,
            ClusterConfig.Retries.DEFAULTS,
            Duration.ZERO,
            Duration.ZERO,
            null);
    UpstreamTarget fresh = rebuilt(old, moved).upstreams().getFirst();
    assertThat(fresh.active()).isZero();
    assertThat(fresh.available(System.nanoTime())).isTrue();
  }
}
