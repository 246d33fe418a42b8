package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A handler may refuse reads before they happen, and the bytes wait in the socket, not lost. */
class ReadGateTest {

  /** Reads only while allowed; counts the refusals. */
  private static final class Gated implements ConnectionHandler {
    final AtomicBoolean open = new AtomicBoolean();
    final AtomicInteger refusals = new AtomicInteger();
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    volatile Connection connection;

    @Override
    public void onActive(Connection c) {
      connection = c;
    }

    @Override
    public boolean mayRead(Connection c) {
      if (open.get()) {
        return true;
      }
      refusals.incrementAndGet();
      return false;
    }

    @Override
    public void onRead(Connection c, BorrowedBytes read) {
      synchronized (bytes) {
        bytes.writeBytes(read.copy().bytes());
      }
    }

    int received() {
      synchronized (bytes) {
        return bytes.size();
      }
    }
  }

  @Test
  void aRefusedReadWaitsUntilTheHandlerResumes() throws Exception {
    Gated server = new Gated();
    try (Loopback loopback =
        Loopback.start(
            TransportConfig.defaults().withEventLoops(2),
            new InetSocketAddress("127.0.0.1", 0),
            () -> server)) {
      Connection client = loopback.connect(new RecordingHandler());
      Await.result(client.write(ByteBuffer.wrap(new byte[100_000])), "the write");
      Await.until(() -> server.refusals.get() > 0, () -> "a refused read");
      Thread.sleep(50);
      assertThat(server.received()).as("bytes read while refused").isZero();
      assertThat(server.refusals.get()).as("a refusal pauses: no spinning").isEqualTo(1);
      server.open.set(true);
      server.connection.resumeReading();
      Await.until(() -> server.received() == 100_000, () -> server.received() + " of 100000 B");
    }
  }

  @Test
  void twoListenersShareAPortWithReusePort() throws Exception {
    int port = FreePorts.loopback();
    SocketOptions shared = SocketOptions.defaults().withReusePort(true);
    InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2))) {
      Listener a =
          group.listen(
              address,
              shared,
              () ->
                  new RecordingHandler() {
                    @Override
                    public void onActive(Connection connection) {
                      first.incrementAndGet();
                      connection.close();
                    }
                  });
      Listener b =
          group.listen(
              address,
              shared,
              () ->
                  new RecordingHandler() {
                    @Override
                    public void onActive(Connection connection) {
                      second.incrementAndGet();
                      connection.close();
                    }
                  });
      for (int i = 0; i < 64; i++) {
        try (Socket s = new Socket("127.0.0.1", port)) {
          assertThat(s.getInputStream().read()).isEqualTo(-1);
        }
      }
      assertThat(first.get() + second.get()).isEqualTo(64);
      assertThat(first.get()).as("the kernel spreads connections over both").isPositive();
      assertThat(second.get()).isPositive();
      a.close();
      b.close();
    }
  }
}
