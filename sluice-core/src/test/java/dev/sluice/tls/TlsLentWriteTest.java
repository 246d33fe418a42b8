package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.net.WriteListener;
import dev.sluice.testing.Await;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A write of lent bytes ({@code writeTransient} of a read, as a forwarder makes) that TLS encrypted
 * whole while the socket took only part of the ciphertext: the write completes once the socket has
 * it, and nothing of it is sent twice. The loop lends one buffer object for every read of every
 * connection, so by then it shows another read's bytes: the queue must have let go of it.
 */
class TlsLentWriteTest extends TlsTestBase {
  private static final int PAYLOAD = 4 << 20;

  /** Echoes each read straight from the lent bytes and counts the completions of its writes. */
  private static final class LentEcho extends RecordingHandler {
    final AtomicLong read = new AtomicLong();
    final AtomicLong writes = new AtomicLong();
    final AtomicLong completed = new AtomicLong();
    final List<Throwable> failures = new CopyOnWriteArrayList<>();
    private final WriteListener done =
        error -> {
          if (error != null) {
            failures.add(error);
          }
          completed.incrementAndGet();
        };

    @Override
    public void onRead(Connection connection, BorrowedBytes bytes) {
      read.addAndGet(bytes.length());
      writes.incrementAndGet();
      connection.writeTransient(bytes.buffer(), done);
    }
  }

  /**
   * A server whose connections share one loop, with a plaintext slab of one record (so that each
   * echo is encrypted whole in one batch) and small socket buffers (so that an unread client backs
   * it up soon).
   */
  private Listener echoServer(Supplier<? extends RecordingHandler> handlers) throws Exception {
    EventLoopGroup server =
        group(TransportConfig.defaults().withEventLoops(1).withSlab(16 * 1024, 16 * 1024));
    return listen(
        server,
        serverConfig(),
        SocketOptions.defaults().withBufferSizes(64 * 1024, 64 * 1024),
        handlers);
  }

  private static void assertAllCompleted(LentEcho echo) {
    Await.until(
        () -> echo.completed.get() == echo.writes.get(),
        () -> echo.completed.get() + " of " + echo.writes.get() + " echoes completed");
    assertThat(echo.failures).isEmpty();
  }

  /** Tries to queue each read by reference on every connection it is given, and records why not. */
  private static final class ByReference extends RecordingHandler {
    final List<Connection> targets = new CopyOnWriteArrayList<>();
    final List<String> refusals = new CopyOnWriteArrayList<>();

    @Override
    public void onRead(Connection connection, BorrowedBytes bytes) {
      ByteBuffer lent = bytes.buffer();
      for (Connection target : targets) {
        for (ByteBuffer view :
            List.of(lent, lent.slice(), lent.duplicate(), lent.asReadOnlyBuffer())) {
          try {
            target.write(view, null);
            refusals.add("accepted by " + target + ": " + view);
          } catch (IllegalArgumentException e) {
            refusals.add(e.getMessage());
          }
        }
      }
      super.onRead(connection, bytes);
    }
  }

  @Test
  void noConnectionOfTheLoopQueuesAReadLentByEitherOfItsSlabsByReference() throws Exception {
    EventLoopGroup server = group(TransportConfig.defaults().withEventLoops(1));
    ByReference tlsSide = new ByReference();
    ByReference plainSide = new ByReference();
    Listener tls = listen(server, serverConfig(), () -> tlsSide);
    Listener plain = server.listen(LOOPBACK, SocketOptions.defaults(), () -> plainSide);
    TlsConnection tlsClient =
        connect(
            group(TransportConfig.defaults().withEventLoops(1)),
            clientConfig(),
            tls,
            new RecordingHandler());
    try (Socket plainClient = new Socket()) {
      plainClient.connect(plain.localAddress());
      Connection tlsServer = await(tlsSide.active());
      Connection plainServer = await(plainSide.active());
      List<Connection> both = List.of(tlsServer, plainServer);
      tlsSide.targets.addAll(both);
      plainSide.targets.addAll(both);

      tlsClient.write(ByteBuffer.wrap(new byte[] {'t'}), null);
      plainClient.getOutputStream().write('p');
      Await.until(
          () -> tlsSide.received() == 1 && plainSide.received() == 1,
          () -> "reads: " + tlsSide.received() + " TLS, " + plainSide.received() + " plain");
      assertThat(tlsSide.refusals)
          .as("TLS's plaintext slab and three views of it, on the TLS and the plain connection")
          .containsOnly("a borrowed read buffer cannot be written by reference: use writeTransient")
          .hasSize(8);
      assertThat(plainSide.refusals)
          .as(
              "the transport's read slab and three views of it, on the TLS and the plain connection")
          .containsOnly("a borrowed read buffer cannot be written by reference: use writeTransient")
          .hasSize(8);
    }
  }

  @Test
  void manyEchoesOfLentBytesOnOneLoopEachReturnExactlyTheirOwnBytes() throws Exception {
    // Each client reads only once it has sent all it sends, and they finish sending at different
    // times: on the server's one loop, echoes wait for sockets while other connections read.
    int clients = 16;
    List<LentEcho> echoes = new CopyOnWriteArrayList<>();
    Listener listener =
        echoServer(
            () -> {
              LentEcho echo = new LentEcho();
              echoes.add(echo);
              return echo;
            });
    EventLoopGroup clientLoops = group(TransportConfig.defaults().withEventLoops(2));
    List<RecordingHandler> readers = new ArrayList<>();
    List<byte[]> payloads = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      RecordingHandler reader = new RecordingHandler();
      TlsConnection client = connect(clientLoops, clientConfig(), listener, reader);
      client.pauseReading();
      byte[] payload = new PayloadPattern(100 + i).bytes(0, (256 << 10) + i * 40_009);
      client.write(ByteBuffer.wrap(payload), error -> client.resumeReading());
      readers.add(reader);
      payloads.add(payload);
    }
    for (int i = 0; i < clients; i++) {
      RecordingHandler reader = readers.get(i);
      int size = payloads.get(i).length;
      Await.until(() -> reader.received() >= size, () -> reader.received() + " of " + size + " B");
      byte[] back = reader.receivedBytes();
      assertThat(Arrays.mismatch(back, payloads.get(i)))
          .as("client %d: the first byte of %d B back that is not its own", i, back.length)
          .isEqualTo(-1);
    }
    echoes.forEach(TlsLentWriteTest::assertAllCompleted);
  }

  @Test
  void anEchoOfLentBytesBehindAFullSocketCompletesAndSendsOnlyItsOwnBytes() throws Exception {
    LentEcho echo = new LentEcho();
    BlockingQueue<RecordingHandler> accepted = new LinkedBlockingQueue<>(List.of(echo));
    Listener listener =
        echoServer(
            () -> {
              RecordingHandler next = accepted.poll(); // the echo first, then the others
              return next != null ? next : new RecordingHandler();
            });
    EventLoopGroup clients = group(TransportConfig.defaults().withEventLoops(1));

    RecordingHandler reader = new RecordingHandler();
    TlsConnection echoed = connect(clients, clientConfig(), listener, reader);
    echoed.pauseReading(); // until the server's queue holds encrypted, unsent echoes
    byte[] payload = new PayloadPattern(41).bytes(0, PAYLOAD);
    echoed.write(ByteBuffer.wrap(payload), null);
    Await.until(() -> echo.read.get() == PAYLOAD, () -> echo.read.get() + " B echoed");
    assertThat(echo.connection().pendingWriteBytes()).as("the echo is backed up").isPositive();

    // Another connection's read on the server's loop: the lent buffer now shows its byte.
    RecordingHandler otherServerSide = new RecordingHandler();
    accepted.add(otherServerSide);
    RecordingHandler other = new RecordingHandler();
    connect(clients, clientConfig(), listener, other)
        .write(ByteBuffer.wrap(new byte[] {'x'}), null);
    Await.until(() -> otherServerSide.received() == 1, () -> otherServerSide + " read nothing");

    echoed.resumeReading();
    Await.until(() -> reader.received() >= PAYLOAD, () -> reader.received() + " B back");
    byte[] back = reader.receivedBytes();
    assertThat(Arrays.mismatch(back, payload))
        .as("the first byte of %d B back that is not the echo's", back.length)
        .isEqualTo(-1);
    assertAllCompleted(echo);
    assertThat(echo.connection().pendingWriteBytes()).isZero();
  }
}
