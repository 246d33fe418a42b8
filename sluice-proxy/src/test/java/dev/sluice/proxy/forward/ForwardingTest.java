package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.EchoClient;
import dev.sluice.proxy.testing.EchoClient.Security;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.TestPki;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every byte through the proxy arrives once, in order, both ways: the four stream combinations of
 * seed 004 (client TCP or TLS, 1.3 and 1.2, upstream TCP or Unix), each with a patterned stream
 * echoed back and checked byte by byte, and both ends half-closing in turn.
 */
class ForwardingTest {
  @TempDir Path dir;

  static Stream<Arguments> combinations() {
    List<Arguments> cases = new ArrayList<>();
    for (Security client : Security.values()) {
      for (String upstream : List.of("tcp", "unix")) {
        for (long size : List.of(1L, 100_000L, 8L << 20)) {
          cases.add(Arguments.of(client, upstream, size));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "client {0}, upstream {1}, {2} B")
  @MethodSource("combinations")
  void aStreamIsEchoedIntactThroughTheProxy(Security client, String upstream, long size)
      throws Exception {
    SocketAddress bind =
        upstream.equals("unix")
            ? UnixDomainSocketAddress.of(dir.resolve("echo.sock"))
            : new InetSocketAddress("127.0.0.1", 0);
    TestPki pki = TestPki.get();
    try (EchoServer echo = EchoServer.start(bind);
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: front
                    address: 127.0.0.1:0
                    cluster: echo
                %s
                clusters:
                  - name: echo
                    upstreams: [{address: "%s"}]
                """
                    .formatted(
                        client.tls()
                            ? "    tls: {certificates: [{cert: \"%s\", key: \"%s\"}]}"
                                .formatted(pki.serverCert, pki.serverKey)
                            : "",
                        address(echo.address())),
                dir)) {
      EchoClient.Result result =
          EchoClient.echo(proxy.address("front"), client, "localhost", size, size);
      assertThat(result.failure()).isNull();
      assertThat(result.received()).isEqualTo(size);
      List<Pair> pairs = proxy.awaitClosed(1);
      Pair pair = pairs.getFirst();
      assertThat(pair.cause()).isIn(CloseCause.CLIENT_EOF, CloseCause.UPSTREAM_EOF);
      assertThat(pair.client().bytesRead()).isEqualTo(size);
      assertThat(pair.upstream().bytesRead()).isEqualTo(size);
      assertThat(proxy.runtime().budget().used()).isZero();
    }
  }

  static String address(SocketAddress address) {
    return address instanceof UnixDomainSocketAddress unix
        ? "unix:" + unix.getPath()
        : "127.0.0.1:" + ((InetSocketAddress) address).getPort();
  }
}
