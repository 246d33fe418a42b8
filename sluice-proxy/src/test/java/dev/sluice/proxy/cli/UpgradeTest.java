package dev.sluice.proxy.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.testing.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upgrade without a refused connection: a second proxy process starts on the same port
 * (SO_REUSEPORT), the first is sent SIGTERM and drains, and a client that connects in a loop all
 * along never sees a failure. On Linux, {@code net.ipv4.tcp_migrate_req=1} moves connections still
 * queued on the closing listener to the other one instead of resetting them (CI's setup script sets
 * it; without it the window is the few microseconds between the old process's last accept and its
 * close).
 */
class UpgradeTest {
  @TempDir Path dir;

  @Test
  void aClientLoopSeesNoFailureAcrossAnUpgrade() throws Exception {
    int port = FreePorts.loopback();
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(
          file,
          """
          listeners:
            - name: front
              address: 127.0.0.1:%d
              cluster: echo
          clusters:
            - name: echo
              upstreams: [{address: "127.0.0.1:%d"}]
          timeouts: {drain: 2s}
          """
              .formatted(port, ((InetSocketAddress) echo.address()).getPort()));
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong succeeded = new AtomicLong();
      List<String> failures = new CopyOnWriteArrayList<>();
      try (ChildProxy old = ChildProxy.run(file)) {
        Thread loop =
            Thread.ofVirtual()
                .start(
                    () -> {
                      byte[] ping = "ping across the upgrade".getBytes();
                      while (!stop.get()) {
                        try (Socket s = new Socket("127.0.0.1", port)) {
                          s.setSoTimeout(10_000);
                          OutputStream out = s.getOutputStream();
                          out.write(ping);
                          s.shutdownOutput();
                          InputStream in = s.getInputStream();
                          byte[] back = in.readAllBytes();
                          if (back.length != ping.length) {
                            failures.add("echoed " + back.length + " of " + ping.length + " bytes");
                          } else {
                            succeeded.incrementAndGet();
                          }
                        } catch (IOException e) {
                          failures.add(e.toString());
                        }
                      }
                    });
        Thread.sleep(500);
        try (ChildProxy next = ChildProxy.run(file)) {
          Thread.sleep(500);
          long beforeTerm = succeeded.get();
          old.signal("TERM");
          assertThat(old.awaitExit()).isIn(0, 143);
          Thread.sleep(1000);
          stop.set(true);
          loop.join();
          assertThat(failures)
              .as(
                  "failures of the client loop; the old process printed:%n%s%nthe new one:%n%s",
                  String.join("\n", old.output()), String.join("\n", next.output()))
              .isEmpty();
          assertThat(succeeded.get())
              .as("connections served after the old process stopped")
              .isGreaterThan(beforeTerm);
          assertThat(next.isAlive()).isTrue();
        }
      }
    }
  }
}
