package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A connection that reads as closed always has its close reason, seen from any thread. */
class CloseReasonVisibilityTest {

  @Test
  void closedConnectionsAlwaysShowAReason() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            new InetSocketAddress("127.0.0.1", 0),
            servers)) {
      for (int round = 0; round < 5; round++) {
        List<Connection> clients = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          clients.add(loopback.connect(new RecordingHandler()));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger missing = new AtomicInteger();
        Thread watcher =
            Thread.ofPlatform()
                .start(
                    () -> {
                      while (!stop.get()) {
                        for (Connection c : clients) {
                          if (!c.isOpen() && c.closeReason() == null) {
                            missing.incrementAndGet();
                          }
                        }
                      }
                    });
        clients.forEach(Connection::reset);
        Await.until(() -> clients.stream().noneMatch(Connection::isOpen), () -> "all closed");
        stop.set(true);
        watcher.join();
        assertThat(missing).as("closed connections read without a reason").hasValue(0);
      }
    }
  }
}
