package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.CloseReason;
import dev.sluice.net.CloseReason.TlsFailure;
import dev.sluice.net.CloseReason.TlsFailure.Kind;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionClosedException;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The end of a TLS session, when it races other events: bytes after close_notify, a close while
 * writes are in flight, a transport that dies while TLS starts.
 */
class TlsCloseRacesTest extends TlsTestBase {
  private final BlockingQueue<RecordingHandler> accepted = new LinkedBlockingQueue<>();

  /** Keeps its output open when the peer's ends (TLS 1.3 half-close). */
  private static RecordingHandler halfOpen() {
    return new RecordingHandler(false);
  }

  /** Small socket buffers: a socket nobody reads fills after a few batches. */
  private static final SocketOptions TINY =
      SocketOptions.defaults().withBufferSizes(64 * 1024, 64 * 1024);

  private Listener start(EventLoopGroup group, java.util.function.Supplier<RecordingHandler> make)
      throws Exception {
    return start(group, SocketOptions.defaults(), make);
  }

  private Listener start(
      EventLoopGroup group,
      SocketOptions options,
      java.util.function.Supplier<RecordingHandler> make)
      throws Exception {
    return listen(
        group,
        serverConfig(),
        options,
        () -> {
          RecordingHandler handler = make.get();
          accepted.add(handler);
          return handler;
        });
  }

  /** Waits until {@code connection}'s writes back up behind a socket its peer does not read. */
  private static void awaitNotWritable(Connection connection) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (connection.isWritable() && System.nanoTime() < deadline) {
      Thread.sleep(2);
    }
  }

  private RecordingHandler nextAccepted() throws InterruptedException {
    RecordingHandler handler = accepted.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(handler).as("a connection was accepted").isNotNull();
    return handler;
  }

  @Test
  void dataAfterCloseNotifyEndsInputOnceThenIsAProtocolError() throws Exception {
    EventLoopGroup group = group();
    Listener listener = start(group, TlsCloseRacesTest::halfOpen);
    try (RawTlsPeer peer = new RawTlsPeer(listener.localAddress(), pki.caTrust(), "TLSv1.3")) {
      peer.handshake();
      RecordingHandler server = nextAccepted();
      await(server.tlsActive());
      var hello = server.expect(5);
      peer.send(peer.record("hello".getBytes(StandardCharsets.US_ASCII)));
      await(hello);
      peer.send(peer.closeNotify());
      await(server.endOfInput());
      peer.send(new byte[] {23, 3, 3, 0, 1, 42}); // a record after the close
      try {
        Thread.sleep(50);
        peer.send(new byte[] {23, 3, 3, 0, 1, 42}); // and another, unless closed already
      } catch (java.io.IOException closed) {
        // the server closed at the first one
      }
      CloseReason reason = await(server.closed());
      assertThat(reason).isInstanceOf(TlsFailure.class);
      assertThat(((TlsFailure) reason).kind()).isEqualTo(Kind.PROTOCOL_ERROR);
      assertThat(((TlsFailure) reason).detail()).contains("after close_notify");
      assertThat(server.endOfInputCalls()).isEqualTo(1);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void bytesBehindCloseNotifyInTheSameReadAreAProtocolError(String protocol) throws Exception {
    EventLoopGroup group = group();
    Listener listener = start(group, TlsCloseRacesTest::halfOpen);
    try (RawTlsPeer peer = new RawTlsPeer(listener.localAddress(), pki.caTrust(), protocol)) {
      peer.handshake();
      RecordingHandler server = nextAccepted();
      await(server.tlsActive());
      byte[] close = peer.closeNotify();
      byte[] both = java.util.Arrays.copyOf(close, close.length + 6);
      System.arraycopy(new byte[] {23, 3, 3, 0, 1, 42}, 0, both, close.length, 6);
      peer.send(both);
      CloseReason reason = await(server.closed());
      assertThat(reason).isInstanceOf(TlsFailure.class);
      assertThat(((TlsFailure) reason).kind()).isEqualTo(Kind.PROTOCOL_ERROR);
      assertThat(server.endOfInputCalls()).isLessThanOrEqualTo(1);
    }
  }

  /**
   * A TLS 1.2 peer that says close_notify while the server's writes wait behind a socket it does
   * not read: TLS 1.2 has no half-close, so those writes will never go, and they fail rather than
   * wait (a proxy learns from that failure that the other side's bytes are undeliverable). On the
   * JDK engine they were kept for ever: its answering close_notify closed the engine's output only
   * after the check that fails them, and a proxy pair waited for its write-stall timeout.
   */
  @Test
  void aTls12PeersCloseNotifyFailsTheWritesQueuedBehindItsUnreadSocket() throws Exception {
    EventLoopGroup group = group();
    Listener listener = start(group, TINY, TlsCloseRacesTest::halfOpen);
    try (RawTlsPeer peer = new RawTlsPeer(listener.localAddress(), pki.caTrust(), "TLSv1.2")) {
      peer.handshake();
      RecordingHandler server = nextAccepted();
      TlsConnection connection = await(server.tlsActive());
      CompletableFuture<Throwable> big = new CompletableFuture<>();
      connection
          .loop()
          .execute(() -> connection.write(ByteBuffer.allocate(32 << 20), big::complete));
      awaitNotWritable(connection);
      assertThat(connection.isWritable())
          .as("the write is stuck behind the unread socket")
          .isFalse();
      peer.send(peer.closeNotify()); // and reads nothing
      await(server.endOfInput());
      assertThat(await(big))
          .as("the queued write, which TLS 1.2 can no longer send")
          .isInstanceOf(ConnectionClosedException.class);
      connection.close();
    }
  }

  @Test
  void writesWhoseCiphertextReachedTheSocketSucceedWhenACloseRacesALaterOne() throws Exception {
    EventLoopGroup group = group();
    // The socket fills after a few batches, well within one flush.
    Listener listener = start(group, TINY, RecordingHandler::new);
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection =
        await(
            TlsClient.create(clientConfig()).connect(group, listener.localAddress(), TINY, client));
    RecordingHandler server = nextAccepted();
    await(server.tlsActive()).pauseReading();
    CompletableFuture<Throwable> small = new CompletableFuture<>();
    CompletableFuture<Throwable> big = new CompletableFuture<>();
    connection
        .loop()
        .execute(
            () -> {
              connection.write(ByteBuffer.allocate(1024), small::complete);
              connection.write(ByteBuffer.allocate(32 << 20), big::complete);
            });
    awaitNotWritable(connection);
    Thread.sleep(50); // let the loop go idle with the big write stuck behind a full socket
    connection.close();
    assertThat(await(small)).as("the 1 KiB write, sent in the first records").isNull();
    assertThat(await(big)).as("the 32 MiB write, stuck").isNotNull();
    listener.close();
  }

  @Test
  void aClientWhoseTlsCannotStartFailsWithAHandshakeException() throws Exception {
    EventLoopGroup group = group();
    Listener listener = start(group, RecordingHandler::new);
    RecordingHandler client = new RecordingHandler();
    CompletableFuture<TlsConnection> future =
        TlsClient.create(clientConfig().withServerName(null))
            .connect(
                group.next(),
                listener.localAddress(),
                "not a host name!",
                SocketOptions.defaults(),
                client);
    ExecutionException failure =
        org.junit.jupiter.api.Assertions.assertThrows(
            ExecutionException.class, () -> future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    assertThat(failure.getCause()).isInstanceOf(TlsHandshakeException.class);
    assertThat(await(client.handshakeFailed())).isInstanceOf(TlsFailure.class);
  }
}
