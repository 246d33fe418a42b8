package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.End;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.Transport;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** A reset from either end: the peer sees it as a reset, and pending writes on both ends fail. */
class ResetTest {
  private static final SocketOptions SMALL_BUFFERS =
      SocketOptions.defaults().withBufferSizes(16 * 1024, 16 * 1024);

  @TempDir Path dir;

  /** TCP only: a Unix-domain socket has no RST, so closing an idle one is plain end of input. */
  @ParameterizedTest(name = "TCP, {0} resets")
  @EnumSource(End.class)
  void thePeerOfAResetIdleConnectionSeesPeerReset(End resetter) throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback = start(Transport.TCP, SocketOptions.defaults(), servers)) {
      RecordingHandler client = new RecordingHandler();
      loopback.connect(client);
      RecordingHandler server = servers.next();
      RecordingHandler resetting = resetter == End.CLIENT ? client : server;
      RecordingHandler peer = resetter == End.CLIENT ? server : client;

      resetting.connection().reset();
      assertThat(Await.result(resetting.closed(), "close of the resetting end"))
          .isEqualTo(CloseReason.LOCAL_RESET);
      assertThat(Await.result(peer.closed(), "close of the peer"))
          .isInstanceOf(CloseReason.PeerReset.class);
      assertThat(peer.endOfInput()).as("a reset is not an orderly end of input").isNotDone();
    }
  }

  /**
   * The write that meets a reset fails like every later one: a {@link ConnectionClosedException}
   * carrying the peer's reset, not the socket's raw error. The client does not read, so it can
   * learn of the reset only by writing.
   */
  @Test
  void theWriteThatMeetsAResetFailsAsAClosedConnection() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback = start(Transport.TCP, SocketOptions.defaults(), servers)) {
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(client);
      RecordingHandler server = servers.next();
      CompletableFuture<Void> paused = new CompletableFuture<>();
      connection.pauseReading();
      connection.loop().execute(() -> paused.complete(null)); // runs after the pause
      Await.result(paused, "reading paused");
      server.connection().reset();
      Await.result(server.closed(), "close of the resetting end");

      Throwable failure = null;
      for (int i = 0; i < 100 && failure == null; i++) {
        try {
          connection.write(ByteBuffer.allocate(1)).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          failure = e.getCause();
        }
      }
      assertThat(failure)
          .isInstanceOf(ConnectionClosedException.class)
          .hasMessageContaining("peer_reset");
      assertThat(((ConnectionClosedException) failure).reason())
          .isInstanceOf(CloseReason.PeerReset.class);
      assertThat(Await.result(client.closed(), "close of the client"))
          .isInstanceOf(CloseReason.PeerReset.class);
    }
  }

  /** The contrast that makes the test above meaningful: a plain close is an orderly end. */
  @ParameterizedTest(name = "TCP, {0} closes")
  @EnumSource(End.class)
  void thePeerOfAClosedIdleConnectionSeesEndOfInput(End closer) throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback = start(Transport.TCP, SocketOptions.defaults(), servers)) {
      RecordingHandler client = new RecordingHandler();
      loopback.connect(client);
      RecordingHandler server = servers.next();
      RecordingHandler closing = closer == End.CLIENT ? client : server;
      RecordingHandler peer = closer == End.CLIENT ? server : client;

      closing.connection().close();
      assertThat(Await.result(closing.closed(), "close")).isEqualTo(CloseReason.NORMAL);
      Await.result(peer.endOfInput(), "end of input at the peer");
      assertThat(Await.result(peer.closed(), "close of the peer")).isEqualTo(CloseReason.NORMAL);
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Transport transport : Transport.values()) {
      for (End resetter : End.values()) {
        cases.add(Arguments.of(transport, resetter));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1} resets")
  @MethodSource("cases")
  void aResetFailsThePendingWritesOfBothEnds(Transport transport, End resetter) throws Exception {
    Accepted<PausedHandler> servers = new Accepted<>(PausedHandler::new);
    try (Loopback loopback = start(transport, SMALL_BUFFERS, servers)) {
      PausedHandler client = new PausedHandler();
      loopback.connect(SMALL_BUFFERS, client);
      PausedHandler server = servers.next();
      PausedHandler resetting = resetter == End.CLIENT ? client : server;
      PausedHandler peer = resetter == End.CLIENT ? server : client;

      // Neither end reads, so both queues fill past the high watermark and stay pending.
      CompletableFuture<Void> resettingWrite =
          resetting.connection().write(ByteBuffer.allocate(4 << 20));
      CompletableFuture<Void> peerWrite = peer.connection().write(ByteBuffer.allocate(4 << 20));
      Await.until(
          () -> !resetting.writabilityChanges().isEmpty() && !peer.writabilityChanges().isEmpty(),
          () -> "both write queues to pass the high watermark");

      resetting.connection().reset();
      Throwable local = Await.failure(resettingWrite, "the resetting end's pending write");
      assertThat(local).isInstanceOf(ConnectionClosedException.class);
      assertThat(((ConnectionClosedException) local).reason()).isEqualTo(CloseReason.LOCAL_RESET);

      Throwable remote = Await.failure(peerWrite, "the peer's pending write");
      assertThat(remote).isInstanceOf(ConnectionClosedException.class);
      assertThat(((ConnectionClosedException) remote).reason())
          .isInstanceOf(CloseReason.PeerReset.class);
      assertThat(Await.result(peer.closed(), "close of the peer"))
          .isInstanceOf(CloseReason.PeerReset.class);
      assertThat(loopback.group().memoryStats().pendingWriteBytes()).isZero();
    }
  }

  private Loopback start(
      Transport transport, SocketOptions options, Accepted<? extends RecordingHandler> servers)
      throws Exception {
    return Loopback.start(
        TransportConfig.defaults().withEventLoops(2), transport.bindAddress(dir), options, servers);
  }

  /** Never reads. */
  private static final class PausedHandler extends RecordingHandler {
    @Override
    public void onActive(Connection connection) {
      connection.pauseReading();
      super.onActive(connection);
    }
  }
}
