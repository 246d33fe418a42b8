package dev.sluice.proxy.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.ConfigReader;
import dev.sluice.proxy.forward.CloseCause;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.KillableEcho;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each limit refuses exactly what it should, at once and with its counted cause, while a bystander
 * pair opened before keeps flowing.
 */
class LimitsTest {
  @TempDir Path dir;

  private static String yaml(KillableEcho echo, String limits) {
    return """
        listeners:
          - name: front
            address: 127.0.0.1:0
            cluster: echo
            limits: %s
        clusters:
          - {name: echo, upstreams: [{address: "%s"}]}
        """
        .formatted(limits, echo.address());
  }

  private static Socket open(ProxyFixture proxy) throws IOException {
    InetSocketAddress address = (InetSocketAddress) proxy.address("front");
    Socket s = new Socket(address.getAddress(), address.getPort());
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    return s;
  }

  /** Whether the proxy echoes a byte on {@code s} (false: it was closed). */
  private static boolean echoes(Socket s) {
    try {
      s.getOutputStream().write('x');
      return s.getInputStream().read() == 'x';
    } catch (IOException closed) {
      return false;
    }
  }

  private static void assertRefused(ProxyFixture proxy, CloseCause cause, Socket bystander)
      throws Exception {
    try (Socket refused = open(proxy)) {
      assertThat(echoes(refused)).as("a refused client").isFalse();
    }
    Await.until(
        () -> proxy.listener("front").stats().closedCount(cause) >= 1,
        () -> "a connection refused with " + cause.label());
    assertThat(echoes(bystander)).as("the bystander").isTrue();
  }

  @Test
  void theRateLimitRefusesTheConnectionsBeyondItsBurst() throws Exception {
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy =
            ProxyFixture.start(yaml(echo, "{connectionsPerSecond: 1, burst: 2}"), dir)) {
      Socket bystander = open(proxy);
      assertThat(echoes(bystander)).isTrue();
      Socket second = open(proxy);
      assertThat(echoes(second)).as("within the burst").isTrue();
      assertRefused(proxy, CloseCause.RATE_LIMITED, bystander);
      bystander.close();
      second.close();
    }
  }

  @Test
  void perSourceAddressCountsOpenConnectionsAndFreesThemOnClose() throws Exception {
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(yaml(echo, "{perSourceAddress: 2}"), dir)) {
      Socket bystander = open(proxy);
      Socket second = open(proxy);
      assertThat(echoes(bystander) && echoes(second)).isTrue();
      assertRefused(proxy, CloseCause.SOURCE_LIMIT, bystander);
      second.close();
      Await.until(() -> proxy.closedPairs().size() >= 2, () -> "the second pair to end");
      try (Socket again = open(proxy)) {
        assertThat(echoes(again)).as("a slot freed by a close").isTrue();
      }
      bystander.close();
    }
  }

  @Test
  void deniedAndNotAllowedNetworksAreRefused() throws Exception {
    try (KillableEcho echo = KillableEcho.on("127.0.0.1")) {
      try (ProxyFixture proxy = ProxyFixture.start(yaml(echo, "{deny: [127.0.0.0/8]}"), dir);
          Socket denied = open(proxy)) {
        assertThat(echoes(denied)).isFalse();
        assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.DENIED);
        assertThat(echo.accepted()).as("no upstream connection for a denied client").isZero();
      }
      try (ProxyFixture proxy =
              ProxyFixture.start(yaml(echo, "{allow: [10.0.0.0/8, \"::1/128\"]}"), dir);
          Socket denied = open(proxy)) {
        assertThat(echoes(denied)).isFalse();
        assertThat(proxy.awaitClosed(1).getFirst().cause()).isEqualTo(CloseCause.DENIED);
      }
      try (ProxyFixture proxy = ProxyFixture.start(yaml(echo, "{allow: [127.0.0.1/32]}"), dir);
          Socket allowed = open(proxy)) {
        assertThat(echoes(allowed)).isTrue();
      }
    }
  }

  @Test
  void aTlsClientWithoutAServerNameIsRefusedWhenOneIsRequired() throws Exception {
    TestPki pki = TestPki.get();
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: echo
                    tls: {certificates: [{cert: "%s", key: "%s"}]}
                    limits: {requireSni: true}
                clusters:
                  - {name: echo, upstreams: [{address: "%s"}]}
                """
                    .formatted(pki.serverCert, pki.serverKey, echo.address()),
                dir)) {
      assertThat(
              EchoClient.echo(proxy.address("front"), EchoClient.Security.TLS, "localhost", 100, 1)
                  .ok())
          .isTrue();
      // An IP literal as the host: the JDK then sends no SNI.
      List<Pair> closed = new ArrayList<>();
      try (EchoClient.Streams s =
          EchoClient.open(proxy.address("front"), EchoClient.Security.TLS, null, false)) {
        assertThat(s.in.read()).isEqualTo(-1);
      }
      closed.addAll(proxy.awaitClosed(2));
      assertThat(closed.get(1).cause()).isEqualTo(CloseCause.SNI_REQUIRED);
    }
  }

  @Test
  void aReloadThatChangesTheLimitsKeepsTheCountsPerAddress() throws Exception {
    try (KillableEcho echo = KillableEcho.on("127.0.0.1");
        ProxyFixture proxy = ProxyFixture.start(yaml(echo, "{perSourceAddress: 1}"), dir)) {
      Socket first = open(proxy);
      assertThat(echoes(first)).isTrue();
      // Only a rate is added: the client at 127.0.0.1 is still at its limit.
      proxy
          .runtime()
          .reload(
              ConfigReader.read(
                  yaml(echo, "{perSourceAddress: 1, connectionsPerSecond: 1000, burst: 1000}"),
                  "test.yaml",
                  dir));
      assertRefused(proxy, CloseCause.SOURCE_LIMIT, first);
      first.close();
      Await.until(() -> proxy.closedPairs().size() >= 2, () -> "the first pair to end");
      // Its end freed the count that judges new clients, not a forgotten one.
      try (Socket again = open(proxy)) {
        assertThat(echoes(again)).as("a slot freed by the first one's close").isTrue();
      }
    }
  }
}
