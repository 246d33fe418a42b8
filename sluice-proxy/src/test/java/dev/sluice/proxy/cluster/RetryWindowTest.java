package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.proxy.testing.TlsEchoServer;
import dev.sluice.proxy.testing.UnresponsiveUpstream;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A connect that times out (its SYNs dropped) or whose upstream TLS handshake times out is retried
 * on the healthy upstream, whatever the retry window: as long as the connect timeout (the defaults
 * were both 5 s, so a timed-out connect was never retried), the default, or none (no limit).
 */
class RetryWindowTest {
  private static final int CLIENTS = 4;

  @TempDir Path dir;

  private static String yaml(String upstreams, String cluster) {
    return """
        listeners:
          - {name: front, address: "127.0.0.1:0", cluster: c}
        clusters:
          - name: c
            upstreams: [%s]
            passive: {failures: 0}
        %s
        timeouts: {connect: 300ms}
        """
        .formatted(upstreams, cluster);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "    retries: {within: 300ms}", // as long as the connect timeout, as the defaults were
        "    retries: {within: none}",
        "    retries: {tries: 3}" // the default window
      })
  void aConnectThatTimesOutIsRetriedOnTheHealthyUpstream(String retries) throws Exception {
    try (UnresponsiveUpstream dropping = UnresponsiveUpstream.droppingSyns();
        KillableEcho healthy = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy =
            ProxyFixture.start(
                yaml(
                    "{address: \"%s\"}, {address: \"%s\"}"
                        .formatted(dropping.address(), healthy.address()),
                    retries),
                dir)) {
      for (int i = 0; i < CLIENTS; i++) {
        proxy.echoOnce("front", 'r').close(); // through the healthy one
      }
      assertThat(proxy.upstream("c", dropping.address()).connectFailures())
          .as("round-robin sent some to the upstream that drops SYNs first")
          .isPositive();
      assertThat(proxy.awaitClosed(CLIENTS))
          .allSatisfy(p -> assertThat(p.facts().connectAttempts()).isBetween(1, 2))
          .extracting(Pair::cause)
          .doesNotContain(CloseCause.CONNECT_TIMEOUT);
    }
  }

  @Test
  void anUpstreamTlsHandshakeThatTimesOutIsRetriedOnTheHealthyUpstream() throws Exception {
    TestPki pki = TestPki.get();
    try (UnresponsiveUpstream silent = UnresponsiveUpstream.silent();
        TlsEchoServer healthy = new TlsEchoServer(pki.serverKeyMaterial());
        ProxyFixture proxy =
            ProxyFixture.start(
                yaml(
                    "{address: \"%s\"}, {address: \"127.0.0.1:%d\"}"
                        .formatted(silent.address(), healthy.port()),
                    """
                        tls: {ca: "%s", serverName: localhost, handshakeTimeout: 300ms}
                        retries: {within: 300ms}
                    """
                        .formatted(pki.caCert)),
                dir)) {
      for (int i = 0; i < CLIENTS; i++) {
        proxy.echoOnce("front", 'r').close(); // through the healthy one
      }
      assertThat(proxy.upstream("c", silent.address()).connectFailures()).isPositive();
      assertThat(proxy.upstream("c", silent.address()).health().lastProblem())
          .startsWith("upstream_tls_timeout");
      assertThat(proxy.awaitClosed(CLIENTS))
          .extracting(Pair::cause)
          .doesNotContain(CloseCause.UPSTREAM_TLS_TIMEOUT, CloseCause.UPSTREAM_TLS_FAILED);
    }
  }

  @Test
  void withNoOtherUpstreamATimedOutHandshakeEndsThePairWithItsOwnCause() throws Exception {
    TestPki pki = TestPki.get();
    try (UnresponsiveUpstream silent = UnresponsiveUpstream.silent();
        ProxyFixture proxy =
            ProxyFixture.start(
                yaml(
                    "{address: \"%s\"}".formatted(silent.address()),
                    "    tls: {ca: \"%s\", handshakeTimeout: 200ms}".formatted(pki.caCert)),
                dir)) {
      InetSocketAddress address = (InetSocketAddress) proxy.address("front");
      try (Socket s = new Socket(address.getAddress(), address.getPort())) {
        s.setSoTimeout((int) Await.PATIENCE.toMillis());
        try {
          assertThat(s.getInputStream().read()).isEqualTo(-1);
        } catch (java.net.SocketException reset) {
          // the proxy resets a client whose upstream it could not reach
        }
      }
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.cause()).isEqualTo(CloseCause.UPSTREAM_TLS_TIMEOUT);
      assertThat(pair.causeDetail()).contains(silent.address());
    }
  }
}
