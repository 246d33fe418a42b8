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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
   * A blocking sink that reads until EOF, pausing {@code pauseMillis} every {@code every} bytes;
   * with a gate, its connections read nothing until the gate opens.
   */
  static final class Sink implements AutoCloseable {
    final ServerSocket server;
    final List<CompletableFuture<Received>> received = new ArrayList<>();
    private final AtomicLong total = new AtomicLong();

    Sink(int connections, int readSize, long every, long pauseMillis) throws IOException {
      this(connections, readSize, every, pauseMillis, 0, CompletableFuture.completedFuture(null));
    }

    /** With SO_RCVBUF {@code receiveBuffer} (0 for the default) and {@code gate}. */
    Sink(
        int connections,
        int readSize,
        long every,
        long pauseMillis,
        int receiveBuffer,
        CompletableFuture<Void> gate)
        throws IOException {
      server = new ServerSocket();
      if (receiveBuffer > 0) {
        server.setReceiveBufferSize(receiveBuffer); // accepted sockets inherit it
      }
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
      for (int i = 0; i < connections; i++) {
        CompletableFuture<Received> done = new CompletableFuture<>();
        received.add(done);
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  try (Socket s = server.accept();
                      InputStream in = s.getInputStream()) {
                    Await.result(gate, "the sink's gate");
                    byte[] buf = new byte[readSize];
                    CRC32 crc = new CRC32();
                    long bytes = 0;
                    long nextPause = every;
                    int n;
                    while ((n = in.read(buf)) >= 0) {
                      crc.update(buf, 0, n);
                      bytes += n;
                      total.addAndGet(n);
                      if (pauseMillis > 0 && bytes >= nextPause) {
                        nextPause += every;
                        Thread.sleep(pauseMillis);
                      }
                    }
                    done.complete(new Received(bytes, crc.getValue()));
                  } catch (Throwable t) {
                    done.completeExceptionally(t);
                  }
                });
      }
    }

    InetSocketAddress address() {
      return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /** Bytes read so far, over all connections. */
    long total() {
      return total.get();
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  /** Sends {@code size} seeded random bytes in writes of {@code writeSize}, then closes. */
  static CompletableFuture<Received> send(
      InetSocketAddress to, long size, int writeSize, long pauseMillis, long seed) {
    return send(to, size, writeSize, pauseMillis, seed, new AtomicLong());
  }

  /** As above, adding to {@code written} what each write handed to the socket. */
  static CompletableFuture<Received> send(
      InetSocketAddress to,
      long size,
      int writeSize,
      long pauseMillis,
      long seed,
      AtomicLong written) {
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
                  written.addAndGet(n);
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
   * How a {@link Relay} reads: {@code maxReadBytes} per read (0: the slab), reading only once
   * {@code go} completes, connecting upstream with {@code upstreamOptions}.
   */
  record Settings(int maxReadBytes, CompletableFuture<Void> go, SocketOptions upstreamOptions) {
    static Settings plain() {
      return new Settings(0, CompletableFuture.completedFuture(null), SocketOptions.defaults());
    }
  }

  /**
   * One direction of a relay: each accepted client gets an upstream to the sink on its own loop;
   * once that is up, every read of the client's is offered for splicing to it. What it does not
   * take is written as a copy, and the client waits for it, as the proxy's legs do.
   */
  static final class Relay implements ConnectionHandler {
    static final AtomicLong SPLICED_READS = new AtomicLong();
    static final AtomicLong COPIED_READS = new AtomicLong();
    static final AtomicLong SPLICED_READ_BYTES = new AtomicLong();
    static final AtomicLong REST_BYTES = new AtomicLong();
    static final AtomicLong RESTS_NOT_EXACT = new AtomicLong();

    /** This relay's reads offered for splicing ({@link #spliceTarget} calls), spliced, copied. */
    final AtomicLong offers = new AtomicLong();

    final AtomicLong splicedReads = new AtomicLong();
    final AtomicLong copiedReads = new AtomicLong();
    private final InetSocketAddress sink;
    private final Settings settings;
    private Connection upstream;
    private boolean ended;

    Relay(InetSocketAddress sink) {
      this(sink, Settings.plain());
    }

    Relay(InetSocketAddress sink, Settings settings) {
      this.sink = sink;
      this.settings = settings;
    }

    @Override
    public void onActive(Connection client) {
      client.pauseReading();
      if (settings.maxReadBytes() > 0) {
        client.setMaxReadBytes(settings.maxReadBytes());
      }
      CompletableFuture<Connection> connected =
          client.loop().connect(sink, settings.upstreamOptions(), new RecordingHandler());
      connected
          .thenCombine(settings.go(), (up, go) -> up)
          .whenComplete(
              (up, error) -> {
                if (error != null) {
                  client.reset();
                  return;
                }
                client
                    .loop()
                    .runOnLoop(
                        () -> {
                          upstream = up;
                          client.resumeReading();
                        });
              });
    }

    @Override
    public Connection spliceTarget(Connection client) {
      offers.incrementAndGet();
      return upstream;
    }

    @Override
    public void onSpliced(Connection client, Connection target, int bytes, ByteBuffer rest) {
      SPLICED_READS.incrementAndGet();
      splicedReads.incrementAndGet();
      SPLICED_READ_BYTES.addAndGet(bytes);
      if (rest != null) {
        REST_BYTES.addAndGet(rest.remaining());
        boolean exact =
            rest.position() == 0
                && rest.capacity() == rest.remaining()
                && rest.hasArray()
                && rest.arrayOffset() == 0
                && rest.array().length == rest.remaining()
                && rest.remaining() <= bytes;
        if (!exact) {
          RESTS_NOT_EXACT.incrementAndGet();
        }
        target.write(rest, error -> drained(client, error));
        client.pauseReading();
      }
    }

    @Override
    public void onRead(Connection client, BorrowedBytes bytes) {
      COPIED_READS.incrementAndGet();
      copiedReads.incrementAndGet();
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

  /** Before any sink or client exists: on NIO there is nothing to test, and nothing to wait for. */
  @BeforeEach
  void onEpollOnly() {
    assumeTrue(Transport.fromSystemProperty().resolve() == Transport.EPOLL, "splice is epoll's");
  }

  /**
   * A listener of {@code group} on a loopback port, each connection handled by {@code handlers}.
   */
  private static Listener listen(
      EventLoopGroup group, java.util.function.Supplier<? extends ConnectionHandler> handlers)
      throws IOException {
    return group.listen(
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
        SocketOptions.defaults(),
        handlers);
  }

  private static EventLoopGroup group(TransportConfig config) {
    EventLoopGroup group = new EventLoopGroup(config.withEventLoops(1));
    if (group.transport() != Transport.EPOLL) {
      group.close();
      assumeTrue(false, "splice is the epoll transport's");
    }
    return group;
  }

  /** What a relay's loop counted while it ran: spliced, copied out of pipes, no pipe free. */
  record Moved(long spliced, long copiedOut, long poolEmpty) {}

  private static Moved relayAndCheck(
      TransportConfig config, int pairs, long size, int writeSize, long writerPause, Sink sink)
      throws Exception {
    return relayAndCheck(
        config, Settings.plain(), pairs, size, writeSize, writerPause, sink, (loop, w) -> {});
  }

  /**
   * Relays {@code pairs} clients' {@code size} bytes each to {@code sink} and checks every byte
   * arrived; {@code whileSending} runs once the clients send, with the bytes each has written.
   */
  private static Moved relayAndCheck(
      TransportConfig config,
      Settings settings,
      int pairs,
      long size,
      int writeSize,
      long writerPause,
      Sink sink,
      BiConsumer<EventLoop, List<AtomicLong>> whileSending)
      throws Exception {
    try (EventLoopGroup group = group(config);
        Listener relay = listen(group, () -> new Relay(sink.address(), settings))) {
      EventLoop loop = group.loops().getFirst();
      long splicedBefore = loop.bytesSpliced();
      long copiedBefore = loop.bytesCopiedOutOfPipes();
      long poolEmptyBefore = loop.splicePoolEmptyCount();
      InetSocketAddress address = (InetSocketAddress) relay.localAddress();
      List<CompletableFuture<Received>> sent = new ArrayList<>();
      List<AtomicLong> written = new ArrayList<>();
      for (int i = 0; i < pairs; i++) {
        written.add(new AtomicLong());
        sent.add(send(address, size, writeSize, writerPause, 42 + i, written.getLast()));
      }
      whileSending.accept(loop, written);
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
      Moved moved =
          new Moved(
              loop.bytesSpliced() - splicedBefore,
              loop.bytesCopiedOutOfPipes() - copiedBefore,
              loop.splicePoolEmptyCount() - poolEmptyBefore);
      SPLICED.addAndGet(moved.spliced());
      COPIED_OUT.addAndGet(moved.copiedOut());
      return moved;
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
   * A sink that reads nothing until a splice to it has stalled, through small socket buffers: the
   * upstream's send buffer fills, splice from the pipe to it returns EAGAIN with bytes in the pipe,
   * and exactly those are copied out, into a buffer of their size, and queued; the client waits
   * meanwhile. Every read's bytes are either spliced or copied out, none lost or left in the pipe.
   */
  @Test
  void aTargetThatTakesNoMoreGetsTheRestCopiedOutAtExactSize() throws Exception {
    long readBytes = Relay.SPLICED_READ_BYTES.get();
    long restBytes = Relay.REST_BYTES.get();
    long notExact = Relay.RESTS_NOT_EXACT.get();
    CompletableFuture<Void> sinkReads = new CompletableFuture<>();
    Settings smallSendBuffer =
        new Settings(
            0,
            CompletableFuture.completedFuture(null),
            SocketOptions.defaults().withBufferSizes(16 * 1024, 0));
    Moved moved;
    try (Sink sink = new Sink(1, 4096, 0, 0, 16 * 1024, sinkReads)) {
      moved =
          relayAndCheck(
              TransportConfig.defaults(),
              smallSendBuffer,
              1,
              4L * MIB,
              256 * 1024,
              0,
              sink,
              (loop, written) -> {
                Await.until(
                    () -> loop.bytesCopiedOutOfPipes() > 0,
                    () -> "no splice to the full upstream stalled");
                sinkReads.complete(null);
              });
    } finally {
      sinkReads.complete(null);
    }
    assertThat(moved.copiedOut()).as("bytes copied out").isPositive();
    assertThat(Relay.REST_BYTES.get() - restBytes)
        .as("the rests handed to the handler are what was copied out")
        .isEqualTo(moved.copiedOut());
    assertThat(Relay.RESTS_NOT_EXACT.get() - notExact).as("rests not of exact size").isZero();
    assertThat(Relay.SPLICED_READ_BYTES.get() - readBytes)
        .as("every spliced read's bytes went to the target or were copied out")
        .isEqualTo(moved.spliced() + moved.copiedOut());
  }

  /**
   * EAGAIN on the source: a client sends exactly one read's worth at a time and waits until it is
   * through. The first splice of each event fills the read, so the connection reads again, and that
   * splice finds the socket empty: nothing to read now, not an error. It does not read a third
   * time, keeps the connection open, loses no byte, and gives the loop's only pipe back (empty), so
   * that another client streaming meanwhile splices with it.
   */
  @Test
  void aSourceWithNothingMoreToReadIsNotAnErrorAndGivesThePipeBack() throws Exception {
    int piece = 1000;
    int rounds = 8;
    List<Relay> relays = new CopyOnWriteArrayList<>();
    Settings onePieceReads =
        new Settings(piece, CompletableFuture.completedFuture(null), SocketOptions.defaults());
    try (Sink sink = new Sink(2, 64 * 1024, 0, 0);
        EventLoopGroup group = group(TransportConfig.defaults().withSplicePipesPerLoop(1));
        Listener listener =
            listen(
                group,
                () -> {
                  Relay relay = new Relay(sink.address(), onePieceReads);
                  relays.add(relay);
                  return relay;
                })) {
      EventLoop loop = group.loops().getFirst();
      long splicedBefore = loop.bytesSpliced();
      long poolEmptyBefore = loop.splicePoolEmptyCount();
      InetSocketAddress address = (InetSocketAddress) listener.localAddress();
      CRC32 sentByFirst = new CRC32();
      CompletableFuture<Received> sentBySecond;
      try (Socket first = new Socket(address.getAddress(), address.getPort())) {
        first.setTcpNoDelay(true);
        OutputStream out = first.getOutputStream();
        Random random = new Random(5);
        byte[] buf = new byte[piece];
        for (int round = 1; round <= rounds; round++) {
          random.nextBytes(buf);
          sentByFirst.update(buf);
          out.write(buf);
          long expected = (long) round * piece;
          Await.until(() -> sink.total() == expected, () -> sink.total() + " of " + expected);
          // The sink has the bytes before the relay tries its next read: the loop finishes that
          // event before the next piece is sent, or the next read would find it.
          finishTurn(loop);
        }
        Relay firstRelay = relays.getFirst();
        assertThat(firstRelay.splicedReads.get()).as("reads spliced").isEqualTo(rounds);
        assertThat(firstRelay.copiedReads.get()).as("reads copied").isZero();
        assertThat(firstRelay.offers.get())
            .as("splices tried: a full one, then one that finds the socket empty, per round")
            .isEqualTo(2L * rounds);
        assertThat(loop.bytesSpliced() - splicedBefore).isEqualTo((long) rounds * piece);

        // The first client stays connected and idle; the loop's only pipe must be free.
        sentBySecond = send(address, 2L * MIB, 64 * 1024, 0, 6);
        Await.result(sentBySecond, "the second client's send");
        Await.until(
            () -> sink.total() == (long) rounds * piece + 2L * MIB,
            () -> "the second client's bytes through");
        assertThat(relays.get(1).copiedReads.get())
            .as("the streaming client's reads that did not splice")
            .isZero();
        assertThat(loop.splicePoolEmptyCount() - poolEmptyBefore)
            .as("reads that found no pipe")
            .isZero();
      }
      List<Long> receivedCrcs = new ArrayList<>();
      for (CompletableFuture<Received> r : sink.received) {
        receivedCrcs.add(Await.result(r, "the sink's bytes").crc());
      }
      assertThat(receivedCrcs)
          .containsExactlyInAnyOrder(
              sentByFirst.getValue(), Await.result(sentBySecond, "the second client's send").crc());
    }
  }

  /**
   * A reader its handler holds back ({@code mayRead} false: the proxy's budget) right after a read
   * that filled keeps no pipe while it waits: the loop's few would otherwise go to connections that
   * read nothing, and streaming ones would copy.
   */
  @Test
  void aReaderHeldBackAfterAFullReadHoldsNoPipe() throws Exception {
    CompletableFuture<Void> go = new CompletableFuture<>();
    Settings smallReads = new Settings(1000, go, SocketOptions.defaults());
    try (Sink sink = new Sink(1, 64 * 1024, 0, 0);
        EventLoopGroup group = group(TransportConfig.defaults().withSplicePipesPerLoop(1));
        Listener listener =
            listen(group, () -> new HeldBackAfterOneSplice(new Relay(sink.address(), smallReads)));
        Socket client = new Socket()) {
      EventLoop loop = group.loops().getFirst();
      client.connect(listener.localAddress());
      client.getOutputStream().write(new byte[3000]); // queued before the relay reads
      go.complete(null);
      Await.until(() -> sink.total() == 1000, () -> sink.total() + " of the first read's 1000 B");
      finishTurn(loop);

      CompletableFuture<Integer> held = new CompletableFuture<>();
      loop.execute(() -> held.complete(loop.local(SplicePipes.SLOT).held()));
      assertThat(Await.result(held, "the loop's pipes held")).isZero();
    }
  }

  /** A relay whose {@code mayRead} refuses every read after its first spliced one. */
  private static final class HeldBackAfterOneSplice implements ConnectionHandler {
    private final Relay relay;
    private boolean admit = true;

    HeldBackAfterOneSplice(Relay relay) {
      this.relay = relay;
    }

    @Override
    public void onActive(Connection client) {
      relay.onActive(client);
    }

    @Override
    public boolean mayRead(Connection client) {
      return admit;
    }

    @Override
    public Connection spliceTarget(Connection client) {
      return relay.spliceTarget(client);
    }

    @Override
    public void onSpliced(Connection client, Connection target, int bytes, ByteBuffer rest) {
      relay.onSpliced(client, target, bytes, rest);
      admit = false;
    }

    @Override
    public void onRead(Connection client, BorrowedBytes bytes) {
      relay.onRead(client, bytes);
    }
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

  /**
   * Two streaming clients on one loop, with one pipe or two. Both start reading at once with a
   * backlog of many reads each (a read is 1 KiB): the first to read keeps the pipe while its reads
   * fill, so with one pipe the other's reads find none, are copied instead and counted; with two,
   * none is. Either way every byte arrives intact.
   */
  @ParameterizedTest(name = "{0} pipe(s)")
  @ValueSource(ints = {1, 2})
  void anExhaustedPoolFallsBackToCopyingAndCountsIt(int pipes) throws Exception {
    long copied = Relay.COPIED_READS.get();
    CompletableFuture<Void> go = new CompletableFuture<>();
    Settings gated = new Settings(1024, go, SocketOptions.defaults());
    Moved moved;
    try (Sink sink = new Sink(2, 64 * 1024, 0, 0)) {
      moved =
          relayAndCheck(
              TransportConfig.defaults().withSplicePipesPerLoop(pipes),
              gated,
              2,
              4L * MIB,
              256 * 1024,
              0,
              sink,
              (loop, written) -> {
                // Each client has written 256 KiB before either relay reads: both sockets hold a
                // backlog of more than one event's 16 reads.
                Await.until(
                    () -> written.stream().allMatch(w -> w.get() >= 256 * 1024),
                    () -> "the clients' backlog: " + written);
                go.complete(null);
              });
    } finally {
      go.complete(null);
    }
    assertThat(moved.spliced()).as("bytes spliced").isPositive();
    if (pipes == 1) {
      assertThat(moved.poolEmpty()).as("reads that found no pipe").isPositive();
      assertThat(Relay.COPIED_READS.get() - copied).as("reads copied").isPositive();
    } else {
      assertThat(moved.poolEmpty()).as("reads that found no pipe").isZero();
    }
  }

  /** Waits until {@code loop} has run a task queued now, so the event it is in is over. */
  private static void finishTurn(EventLoop loop) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    loop.execute(() -> done.complete(null));
    Await.result(done, "the loop's turn");
  }

  /** No pipes: every read is an ordinary one. */
  @Test
  void noPipesMeansNoSplicing() throws Exception {
    long spliced = Relay.SPLICED_READS.get();
    Moved moved;
    try (Sink sink = new Sink(1, 64 * 1024, 0, 0)) {
      moved =
          relayAndCheck(
              TransportConfig.defaults().withSplicePipesPerLoop(0),
              1,
              8L * MIB,
              256 * 1024,
              0,
              sink);
    }
    assertThat(Relay.SPLICED_READS.get() - spliced).isZero();
    assertThat(moved.poolEmpty()).as("a loop without pipes never looks for one").isZero();
  }

  /** A loop stopped while pairs stream holds pipes; stopping it closes every one of them. */
  @Test
  void aLoopStoppedWithPipesInUseClosesThem() throws Exception {
    long pipesBefore = openPipes();
    try (Sink sink = new Sink(3, 64 * 1024, 0, 0)) {
      EventLoopGroup group = group(TransportConfig.defaults());
      List<CompletableFuture<Received>> sent = new ArrayList<>();
      try {
        Listener relay = listen(group, () -> new Relay(sink.address()));
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
