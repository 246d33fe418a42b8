package dev.sluice.proxy.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.Await;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas behind one load balancer (Kubernetes pods of one Deployment): with one configuration and
 * the same upstreams, {@code balance: hash} sends a client to the same upstream whichever replica
 * it reaches, also when a replica lists the upstreams in another order (as a DNS answer may).
 */
class HashAcrossReplicasTest {
  private static final int UPSTREAMS = 3;
  private static final int CLIENTS = 24;

  @TempDir Path dir;

  /** An upstream that answers each connection's first byte with its own number, then closes. */
  private record NumberedUpstream(ServerSocket socket, int number) implements AutoCloseable {
    static NumberedUpstream start(int number) throws IOException {
      ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                while (!socket.isClosed()) {
                  try (Socket s = socket.accept()) {
                    s.getInputStream().read();
                    s.getOutputStream().write(number);
                  } catch (IOException closed) {
                    // the test is over, or a client went away
                  }
                }
              });
      return new NumberedUpstream(socket, number);
    }

    String address() {
      return "127.0.0.1:" + socket.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  private static String config(List<NumberedUpstream> upstreams) {
    StringBuilder list = new StringBuilder();
    for (NumberedUpstream u : upstreams) {
      list.append(list.isEmpty() ? "" : ", ").append("{address: \"" + u.address() + "\"}");
    }
    return """
        listeners:
          - {name: front, address: 127.0.0.1:0, cluster: app}
        clusters:
          - {name: app, balance: hash, upstreams: [%s]}
        """
        .formatted(list);
  }

  /** The upstream that client address 127.0.0.{@code host} reaches through {@code proxy}. */
  private static int upstreamFor(ProxyFixture proxy, int host) throws IOException {
    InetSocketAddress front = (InetSocketAddress) proxy.address("front");
    try (Socket client = new Socket()) {
      client.bind(
          new InetSocketAddress(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) host}), 0));
      client.connect(front);
      client.setSoTimeout((int) Await.PATIENCE.toMillis());
      client.getOutputStream().write('h');
      return client.getInputStream().read();
    }
  }

  private static Map<Integer, Integer> assignment(ProxyFixture proxy) throws IOException {
    Map<Integer, Integer> upstreamOf = new LinkedHashMap<>();
    for (int host = 2; host < 2 + CLIENTS; host++) {
      upstreamOf.put(host, upstreamFor(proxy, host));
    }
    return upstreamOf;
  }

  @Test
  void aClientReachesTheSameUpstreamThroughEveryReplica() throws Exception {
    List<NumberedUpstream> upstreams = new ArrayList<>();
    try {
      for (int i = 1; i <= UPSTREAMS; i++) {
        upstreams.add(NumberedUpstream.start(i));
      }
      String yaml = config(upstreams);
      try (ProxyFixture first = ProxyFixture.start(yaml, dir);
          ProxyFixture second = ProxyFixture.start(yaml, dir);
          ProxyFixture reordered = ProxyFixture.start(config(upstreams.reversed()), dir)) {
        Map<Integer, Integer> seen = assignment(first);
        assertThat(seen.values())
            .as("clients spread over every upstream, else any balancer would agree")
            .containsAll(List.of(1, 2, 3));
        assertThat(assignment(first)).as("the same replica again").isEqualTo(seen);
        assertThat(assignment(second)).as("another replica, same configuration").isEqualTo(seen);
        assertThat(assignment(reordered))
            .as("a replica listing them in another order")
            .isEqualTo(seen);
      }
    } finally {
      for (NumberedUpstream u : upstreams) {
        u.close();
      }
    }
  }
}
