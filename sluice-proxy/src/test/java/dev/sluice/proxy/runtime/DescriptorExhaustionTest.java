package dev.sluice.proxy.runtime;

import static dev.sluice.proxy.testing.AdminClient.series;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.testing.AdminClient;
import dev.sluice.proxy.testing.ChildProxy;
import dev.sluice.proxy.testing.EchoServer;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.TestPki;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proxy out of file descriptors, as a real process whose open-files limit the test lowers while
 * it runs ({@code prlimit}): a new client that is accepted but finds no descriptor for its upstream
 * is closed at once with cause {@code fd_exhausted}, the upstream is not blamed (no ejection, no
 * retry elsewhere), a client that cannot even be accepted waits in the backlog while accept backs
 * off, and every pair already open keeps flowing throughout; once descriptors are back, the waiting
 * client is served.
 */
class DescriptorExhaustionTest {
  private static final int HELD_PAIRS = 10;
  private static final int REFUSED_CLIENTS = 3;

  @TempDir Path dir;

  @Test
  void newClientsAreClosedWithAReasonWhileOpenPairsFlowAndAcceptResumesOnceDescriptorsAreBack()
      throws Exception {
    TestPki.requireTool("prlimit", "--version");
    int port = freePort();
    int adminPort = freePort();
    try (EchoServer echo = EchoServer.start(new InetSocketAddress("127.0.0.1", 0))) {
      Path file = dir.resolve("sluice.yaml");
      Files.writeString(
          file,
          """
          listeners:
            - name: front
              address: 127.0.0.1:%d
              cluster: up
          clusters:
            - name: up
              upstreams: [{address: "%s"}]
          admin: {address: 127.0.0.1:%d}
          """
              .formatted(port, Endpoint.format(echo.address()), adminPort));
      AdminClient admin = new AdminClient(new InetSocketAddress("127.0.0.1", adminPort));
      try (ChildProxy child = ChildProxy.run(file)) {
        child.awaitOutput("Status page");
        // Warm the pair's path once. No scrape before the limits: the admin server keeps an idle
        // HTTP connection open for a while, and its descriptor freed later would skew the count.
        try (Socket warm = connect(port)) {
          assertEchoes(warm, "warm");
        }
        List<Socket> held = new ArrayList<>();
        try {
          for (int i = 0; i < HELD_PAIRS; i++) {
            Socket s = connect(port);
            held.add(s);
            assertEchoes(s, "held " + i);
          }
          long pid = child.pid();
          String normalLimit = openFilesLimit(pid);

          // One descriptor left: the client is accepted with it; its upstream finds none.
          limitOpenFiles(pid, freeDescriptorsBelow(pid, 1));
          for (int i = 0; i < REFUSED_CLIENTS; i++) {
            try (Socket refused = connect(port)) {
              refused.setSoTimeout(10_000);
              assertThat(writeThenReadsEndOfStream(refused))
                  .as(
                      "client %d, accepted without a descriptor for its upstream, is closed;"
                          + " the proxy printed:%n%s",
                      i, String.join("\n", child.output()))
                  .isTrue();
            }
            assertAllEcho(held, "while upstream connects fail");
          }

          // None left: the next client waits in the listen backlog while accept backs off.
          limitOpenFiles(pid, freeDescriptorsBelow(pid, 0));
          try (Socket waiting = connect(port)) {
            waiting.getOutputStream().write("late".getBytes());
            waiting.setSoTimeout(1000);
            assertThat(readsNothing(waiting.getInputStream()))
                .as("no answer while the proxy cannot accept")
                .isTrue();
            assertAllEcho(held, "while accept backs off");

            setOpenFilesLimit(pid, normalLimit);
            waiting.setSoTimeout((int) Await.PATIENCE.toMillis());
            assertThat(new String(waiting.getInputStream().readNBytes(4)))
                .as("accepted and served once descriptors are back")
                .isEqualTo("late");

            Map<String, Double> m = admin.scrape();
            String[] front = {"listener", "front"};
            assertThat(
                    m.get(
                        series(
                            "sluice_connections_closed_total",
                            "listener",
                            "front",
                            "cause",
                            "fd_exhausted")))
                .isEqualTo(REFUSED_CLIENTS);
            assertThat(m.get(series("sluice_listener_accept_backoffs_total", front))).isPositive();
            assertThat(m.get(series("sluice_connections_active", front))).isEqualTo(HELD_PAIRS + 1);
            String[] upstream = {"cluster", "up", "upstream", Endpoint.format(echo.address())};
            assertThat(m.get(series("sluice_upstream_up", upstream))).isEqualTo(1.0);
            assertThat(m.get(series("sluice_upstream_ejections_total", upstream))).isZero();
            assertThat(m.get(series("sluice_upstream_connect_failures_total", upstream)))
                .as("the proxy's own limit is not counted against the upstream")
                .isZero();
          }
          assertAllEcho(held, "after");
          assertThat(child.output())
              .anyMatch(line -> line.contains("no file descriptor left to connect upstream"))
              .anyMatch(line -> line.contains("Too many open files"));
        } finally {
          for (Socket s : held) {
            s.close();
          }
        }
      }
    }
  }

  /**
   * The open-files limit that leaves exactly {@code free} descriptor numbers unused below it: a
   * limit caps the number a new descriptor may get, and the kernel hands out the lowest free one.
   */
  private static int freeDescriptorsBelow(long pid, int free) throws IOException {
    TreeSet<Integer> used = new TreeSet<>();
    try (Stream<Path> fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
      fds.forEach(fd -> used.add(Integer.parseInt(fd.getFileName().toString())));
    }
    int candidate = 0;
    for (int unused = 0; ; candidate++) {
      if (!used.contains(candidate)) {
        if (unused == free) {
          return candidate;
        }
        unused++;
      }
    }
  }

  private static String openFilesLimit(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/limits"))) {
      if (line.startsWith("Max open files")) {
        String[] words = line.trim().split("\\s+");
        return words[3] + ":" + words[4]; // soft:hard
      }
    }
    throw new AssertionError("no open-files limit for " + pid);
  }

  /** Lowers the soft open-files limit of {@code pid}, keeping its hard one. */
  private static void limitOpenFiles(long pid, int soft) throws Exception {
    setOpenFilesLimit(pid, soft + ":" + openFilesLimit(pid).split(":")[1]);
  }

  private static void setOpenFilesLimit(long pid, String value) throws Exception {
    Process p =
        new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--nofile=" + value)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as("prlimit --nofile=%s: %s", value, out).isZero();
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket("127.0.0.1", port);
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    return s;
  }

  private static void assertEchoes(Socket s, String what) throws IOException {
    byte[] message = what.getBytes();
    s.getOutputStream().write(message);
    assertThat(s.getInputStream().readNBytes(message.length)).as(what).isEqualTo(message);
  }

  private static void assertAllEcho(List<Socket> held, String when) throws IOException {
    for (int i = 0; i < held.size(); i++) {
      assertEchoes(held.get(i), "pair " + i + " " + when);
    }
  }

  /**
   * Whether the proxy closes {@code s}: the close may come before the client's byte (the upstream
   * connect fails at once when no descriptor is left), so a reset on the write is that answer too.
   */
  private static boolean writeThenReadsEndOfStream(Socket s) {
    try {
      s.getOutputStream().write('x');
      return s.getInputStream().read() == -1;
    } catch (SocketTimeoutException stillOpen) {
      return false;
    } catch (IOException reset) {
      return true; // closed with a reset: the same answer for the client
    }
  }

  private static boolean readsNothing(InputStream in) throws IOException {
    try {
      in.read();
      return false;
    } catch (SocketTimeoutException expected) {
      return true;
    }
  }

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }
}
