package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.testing.Await;
import dev.sluice.testing.RecordingHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;

/**
 * Kernel-side forwarding between two connections of one loop ({@link
 * ConnectionHandler#spliceTarget}): a one-way relay from blocking client sockets to blocking sink
 * sockets, all on loopback, through a group of one epoll loop. Checks the bytes (count and CRC) and
 * which path they took.
 */
class SpliceTest {
  private static final int MIB = 1 << 20;

  /** What a sink read: its byte count and CRC32, and whether it saw EOF. */
  record Received(long bytes, long crc) {}

  /**
   * A blocking sink that reads until EOF, pausing {@code pauseMillis} every {@code every} bytes.
   */
  static final class Sink implements AutoCloseable {
    final ServerSocket server;
    final List<CompletableFuture<Received>> received = new ArrayList<>();

    Sink(int connections, int readSize, long every, long pauseMillis) throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      for (int i = 0; i < connections; i++) {
        CompletableFuture<Received> done = new CompletableFuture<>();
        received.add(done);
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try (Socket s = server.accept();
                      InputStream in = s.getInputStream()) {
                    byte[] buf = new byte[readSize];
                    CRC32 crc = new CRC32();
                    long total = 0;
                    long nextPause = every;
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                      crc.update(buf, 0, n);
                      total += n;
                      if (pauseMillis > 0 && total >= nextPause) {
                        nextPause += every;
                        Thread.sleep(pauseMillis);
                      }
                    }
                    done.complete(new Received(total, crc.getValue()));
                  } catch (Throwable t) {
                    done.completeExceptionally(t);
                  }
                });
      }
    }

    InetSocketAddress address() {
      return (InetSocketAddress) server.getLocalSocketAddress();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  /** Sends {@code size} seeded random bytes in writes of {@code writeSize}, then closes. */
  static CompletableFuture<Received> send(
      InetSocketAddress to, long size, int writeSize, long pauseMillis, long seed) {
    CompletableFuture<Received> sent = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .start(
            () -> {
              try (Socket s = new Socket(to.getAddress(), to.getPort());
                  OutputStream out = s.getOutputStream()) {
                Random random = new Random(seed);
                byte[] buf = new byte[writeSize];
                CRC32 crc = new CRC32();
                long left = size;
                while (left > 0) {
                  int n = (int) Math.min(buf.length, left);
                  random.nextBytes(buf);
                  crc.update(buf, 0, n);
                  out.write(buf, 0, n);
                  left -= n;
                  if (pauseMillis > 0) {
                    Thread.sleep(pauseMillis);
                  }
                }
                sent.complete(new Received(size, crc.getValue()));
              } catch (Throwable t) {
                sent.completeExceptionally(t);
              }
            });
    return sent;
  }

  /**
   * One direction of a relay: each accepted client gets an upstream to the sink on its own loop;
   * once that is up, every read of the client's is offered for splicing to it. What it does not
   * take is written as a copy, and the client waits for it, as the proxy's legs do.
   */
  static final class Relay implements ConnectionHandler {
    static final AtomicLong SPLICED_READS = new AtomicLong();
    static final AtomicLong COPIED_READS = new AtomicLong();

    private final InetSocketAddress sink;
    private Connection upstream;
    private boolean ended;

    Relay(InetSocketAddress sink) {
      this.sink = sink;
    }

    @Override
    public void onActive(Connection client) {
      client.pauseReading();
      client
          .loop()
          .connect(sink, SocketOptions.defaults(), new RecordingHandler())
          .whenComplete(
              (up, error) -> {
                if (error != null) {
                  client.reset();
                  return;
                }
                upstream = up;
                client.resumeReading();
              });
    }

    @Override
    public Connection spliceTarget(Connection client) {
      return upstream;
    }

    @Override
    public void onSpliced(Connection client, Connection target, int bytes, ByteBuffer rest) {
      SPLICED_READS.incrementAndGet();
      if (rest != null) {
        target.write(rest, error -> drained(client, error));
        client.pauseReading();
      }
    }

    @Override
    public void onRead(Connection client, BorrowedBytes bytes) {
      COPIED_READS.incrementAndGet();
      upstream.writeTransient(bytes.buffer(), error -> drained(client, error));
      if (upstream.pendingWriteBytes() > 0) {
        client.pauseReading();
      }
    }

    private void drained(Connection client, Throwable error) {
      if (error != null) {
        client.reset();
      } else if (upstream.pendingWriteBytes() == 0 && !ended) {
        client.resumeReading();
      }
    }

    @Override
    public void onEndOfInput(Connection client) {
      ended = true;
      upstream.shutdownOutput(); // after what is queued
      client.close();
    }
  }

  private static EventLoopGroup group(TransportConfig config) {
    EventLoopGroup group = new EventLoopGroup(config.withEventLoops(1));
    if (group.transport() != Transport.EPOLL) {
      group.close();
      assumeTrue(false, "splice is the epoll transport's");
    }
    return group;
  }

  private static void relayAndCheck(
      TransportConfig config, int pairs, long size, int writeSize, long writerPause, Sink sink)
      throws Exception {
    try (EventLoopGroup group = group(config);
        Listener relay =
            group.listen(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                SocketOptions.defaults(),
                () -> new Relay(sink.address()))) {
      EventLoop loop = group.loops().getFirst();
      long splicedBefore = loop.bytesSpliced();
      long copiedBefore = loop.bytesCopiedOutOfPipes();
      InetSocketAddress address = (InetSocketAddress) relay.localAddress();
      List<CompletableFuture<Received>> sent = new ArrayList<>();
      for (int i = 0; i < pairs; i++) {
        sent.add(send(address, size, writeSize, writerPause, 42 + i));
      }
      List<Long> sentCrcs = new ArrayList<>();
      for (CompletableFuture<Received> s : sent) {
        sentCrcs.add(Await.result(s, "the client's send").crc());
      }
      List<Long> receivedCrcs = new ArrayList<>();
      for (CompletableFuture<Received> r : sink.received) {
        Received got = Await.result(r, "the sink's bytes");
        assertThat(got.bytes()).isEqualTo(size);
        receivedCrcs.add(got.crc());
      }
      assertThat(receivedCrcs).containsExactlyInAnyOrderElementsOf(sentCrcs);
      SPLICED.addAndGet(loop.bytesSpliced() - splicedBefore);
      COPIED_OUT.addAndGet(loop.bytesCopiedOutOfPipes() - copiedBefore);
    }
  }

  @Test
  void aLargeTransferGoesThroughThePipeIntact() throws Exception {
    long splicedBefore = spliced();
    try (Sink sink = new Sink(1, 64 * 1024, 0, 0)) {
      relayAndCheck(TransportConfig.defaults(), 1, 64L * MIB, 256 * 1024, 0, sink);
    }
    assertThat(spliced() - splicedBefore).as("bytes moved by splice").isGreaterThan(32L * MIB);
  }

  /**
   * A sink that reads slowly: the upstream's socket fills, splice to it returns EAGAIN with bytes
   * in the pipe, and they are copied out at exact size and queued; the client waits meanwhile.
   */
  @Test
  void aSlowReaderFillsThePipeAndTheRestIsCopiedOut() throws Exception {
    long copiedBefore = copiedOut();
    try (Sink sink = new Sink(1, 4096, 256 * 1024, 2)) {
      relayAndCheck(TransportConfig.defaults(), 1, 16L * MIB, 256 * 1024, 0, sink);
    }
    assertThat(copiedOut() - copiedBefore).as("bytes copied out").isPositive();
  }

  /** A client that writes slowly: splice from its socket finds nothing (EAGAIN on the source). */
  @Test
  void aSlowWriterLeavesTheSocketEmptyBetweenReads() throws Exception {
    long splicedReads = Relay.SPLICED_READS.get();
    try (Sink sink = new Sink(1, 64 * 1024, 0, 0)) {
      relayAndCheck(TransportConfig.defaults(), 1, 2L * MIB, 100 * 1024, 1, sink);
    }
    assertThat(Relay.SPLICED_READS.get() - splicedReads).isPositive();
  }

  /**
   * The client sends and closes at once while the sink is slow: the last bytes are read, spliced or
   * copied out, and still delivered before the upstream's EOF.
   */
  @Test
  void aPeerClosingWhileItsBytesAreInFlightLosesNone() throws Exception {
    try (Sink sink = new Sink(1, 1024, 128 * 1024, 5)) {
      relayAndCheck(TransportConfig.defaults(), 1, 4L * MIB, 4 * MIB, 0, sink);
    }
  }

  /** With one pipe for a loop and several streaming pairs, the others copy, all intact. */
  @Test
  void anExhaustedPoolFallsBackToCopying() throws Exception {
    long copied = Relay.COPIED_READS.get();
    long spliced = Relay.SPLICED_READS.get();
    try (Sink sink = new Sink(4, 64 * 1024, 0, 0)) {
      relayAndCheck(
          TransportConfig.defaults().withSplicePipesPerLoop(1), 4, 16L * MIB, 256 * 1024, 0, sink);
    }
    assertThat(Relay.SPLICED_READS.get() - spliced).isPositive();
    assertThat(Relay.COPIED_READS.get() - copied).isPositive();
  }

  /** No pipes: every read is an ordinary one. */
  @Test
  void noPipesMeansNoSplicing() throws Exception {
    long spliced = Relay.SPLICED_READS.get();
    try (Sink sink = new Sink(1, 64 * 1024, 0, 0)) {
      relayAndCheck(
          TransportConfig.defaults().withSplicePipesPerLoop(0), 1, 8L * MIB, 256 * 1024, 0, sink);
    }
    assertThat(Relay.SPLICED_READS.get() - spliced).isZero();
  }

  /** A loop stopped while pairs stream holds pipes; stopping it closes every one of them. */
  @Test
  void aLoopStoppedWithPipesInUseClosesThem() throws Exception {
    long pipesBefore = openPipes();
    try (Sink sink = new Sink(3, 64 * 1024, 0, 0)) {
      EventLoopGroup group = group(TransportConfig.defaults());
      List<CompletableFuture<Received>> sent = new ArrayList<>();
      try {
        Listener relay =
            group.listen(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                SocketOptions.defaults(),
                () -> new Relay(sink.address()));
        InetSocketAddress address = (InetSocketAddress) relay.localAddress();
        for (int i = 0; i < 3; i++) {
          sent.add(send(address, 1L << 40, 256 * 1024, 0, i)); // streams until the relay stops
        }
        Await.until(() -> openPipes() > pipesBefore, () -> "pipes held by streaming pairs");
      } finally {
        group.close();
      }
      assertThat(openPipes()).as("pipes after the loop stopped").isEqualTo(pipesBefore);
      for (CompletableFuture<Received> s : sent) {
        Await.failure(s, "the client's send, cut by the stop");
      }
    }
  }

  private static final AtomicLong SPLICED = new AtomicLong();
  private static final AtomicLong COPIED_OUT = new AtomicLong();

  private static long spliced() {
    return SPLICED.get();
  }

  private static long copiedOut() {
    return COPIED_OUT.get();
  }

  /** Pipe descriptors this process has open. */
  private static long openPipes() {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.filter(
              fd -> {
                try {
                  return Files.readSymbolicLink(fd).toString().startsWith("pipe:");
                } catch (IOException gone) {
                  return false;
                }
              })
          .count();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
