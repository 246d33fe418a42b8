package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.MemoryStats;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.TransportConfig;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * What a TLS connection holds: during a 512 MiB write, never more ciphertext than a couple of
 * records (the rest of the payload stays the caller's, by reference); when idle, nothing.
 */
class TlsMemoryTest extends TlsTestBase {
  /** Two records of ciphertext, the most a connection encrypts ahead of the socket. */
  private static final long TWO_RECORDS = 2L * 16_709;

  @Test
  void aHalfGigabyteWriteNeverHoldsMoreThanTwoRecordsOfCiphertext() throws Exception {
    EventLoopGroup group = group(TransportConfig.defaults().withEventLoops(2));
    int size = 512 << 20;
    // A plain pattern, checked on arrival: hashing 512 MiB would double the test's time.
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (i * 31 + (i >>> 13));
    }
    ByteBuffer payload = ByteBuffer.wrap(bytes);
    AtomicLong mismatches = new AtomicLong();
    CompletableFuture<Long> received = new CompletableFuture<>();
    RecordingHandler server =
        new RecordingHandler(0, TransportConfig.DEFAULT_COPY_THRESHOLD) {
          long offset;

          @Override
          public void onActive(Connection connection) {
            super.onActive(connection);
            // Stall now and then so the socket fills and writes go partial.
            connection.pauseReading();
            connection.loop().schedule(Duration.ofMillis(50), connection::resumeReading);
          }

          @Override
          protected void onBytes(Connection connection, byte[] chunk) {
            for (byte b : chunk) {
              long i = offset++;
              if (b != (byte) (i * 31 + (i >>> 13))) {
                mismatches.incrementAndGet();
              }
            }
            if ((offset >> 26) != ((offset - chunk.length) >> 26)) { // every 64 MiB
              connection.pauseReading();
              connection.loop().schedule(Duration.ofMillis(20), connection::resumeReading);
            }
            if (offset == size) {
              received.complete(offset);
            }
          }
        };
    Listener listener = listen(group, serverConfig(), () -> server);
    TlsConnection client = connect(group, clientConfig(), listener, new RecordingHandler());

    AtomicBoolean sampling = new AtomicBoolean(true);
    List<MemoryStats> samples = new ArrayList<>();
    Thread sampler =
        Thread.ofPlatform()
            .start(
                () -> {
                  while (sampling.get()) {
                    samples.add(group.memoryStats());
                    try {
                      Thread.sleep(1);
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                });
    CompletableFuture<Void> written = client.write(payload);
    assertThat(await(received)).isEqualTo(size);
    await(written);
    sampling.set(false);
    sampler.join();

    assertThat(mismatches.get()).isZero();
    assertThat(samples).hasSizeGreaterThan(10);
    long maxCopied = samples.stream().mapToLong(MemoryStats::pendingCopyBytes).max().orElseThrow();
    long maxHeld =
        samples.stream().mapToLong(MemoryStats::tlsHeldCiphertextBytes).max().orElseThrow();
    long maxQueued = samples.stream().mapToLong(MemoryStats::pendingWriteBytes).max().orElseThrow();
    long maxNative = samples.stream().mapToLong(MemoryStats::nativeBytes).max().orElseThrow();
    // The socket did push back (so the partial-write path ran), and the ciphertext left over from
    // a partial write never exceeded the batch it came from.
    assertThat(maxCopied).as("ciphertext copied from partial writes").isPositive();
    assertThat(maxCopied).isLessThanOrEqualTo(TWO_RECORDS);
    // Held between reads: a partial record, or the rest of the read the reader paused in.
    assertThat(maxHeld).as("ciphertext held").isLessThanOrEqualTo(group.config().slabSize());
    // The payload itself is queued by reference: counted, never duplicated.
    assertThat(maxQueued).isLessThanOrEqualTo(size + TWO_RECORDS);
    // Native memory is the loops' slabs and TLS buffers, independent of the payload.
    assertThat(maxNative).isLessThan(2L << 20);
    assertThat(awaitQuiet(group)).matches(TlsTestBase::quiet);
  }

  @Test
  void idleTlsConnectionsHoldNoBuffer() throws Exception {
    EventLoopGroup group = group(TransportConfig.defaults().withEventLoops(2));
    List<RecordingHandler> servers = new ArrayList<>();
    Listener listener =
        listen(
            group,
            serverConfig(),
            () -> {
              RecordingHandler echo =
                  new RecordingHandler(0, TransportConfig.DEFAULT_COPY_THRESHOLD) {
                    @Override
                    protected void onBytes(Connection connection, byte[] bytes) {
                      super.onBytes(connection, bytes);
                      connection.write(ByteBuffer.wrap(bytes));
                    }
                  };
              synchronized (servers) {
                servers.add(echo);
              }
              return echo;
            });
    TlsClient client = TlsClient.create(clientConfig());
    List<TlsConnection> connections = new ArrayList<>();
    MemoryStats afterFirst = null;
    for (int i = 0; i < 40; i++) {
      RecordingHandler handler = new RecordingHandler(0, TransportConfig.DEFAULT_COPY_THRESHOLD);
      TlsConnection c =
          await(
              client.connect(
                  group,
                  listener.localAddress(),
                  dev.sluice.net.SocketOptions.defaults(),
                  handler));
      var echoed = handler.expect(16 * 1024);
      await(c.write(new PayloadPattern(i).buffer(16 * 1024, false)));
      await(echoed);
      connections.add(c);
      if (i == 0) {
        afterFirst = awaitQuiet(group);
      }
    }
    MemoryStats afterAll = awaitQuiet(group);

    assertThat(afterAll).matches(TlsTestBase::quiet);
    assertThat(afterAll.tlsHeldCiphertextBytes()).isZero();
    for (TlsConnection c : connections) {
      CompletableFuture<Integer> held = new CompletableFuture<>();
      c.loop().execute(() -> held.complete(c.heldCiphertextBytes() + (int) c.pendingWriteBytes()));
      assertThat(await(held)).isZero();
    }
    // Forty idle connections cost no more buffers than one did on each loop: buffers belong to the
    // loops (with a listening socket per loop, later connections may reach a loop the first did
    // not, which then has its own).
    assertThat(afterAll.tlsBufferBytes())
        .isPositive()
        .isLessThanOrEqualTo(afterFirst.tlsBufferBytes() * group.loops().size());
    assertThat(afterAll.nativeBytes())
        .isLessThanOrEqualTo(afterFirst.nativeBytes() * group.loops().size());
    assertThat(afterAll.nativeBytes()).isLessThanOrEqualTo(perLoopCeiling(group));
  }

  /** Read slab, TLS plaintext slab, TLS buffers and staging per loop, with pools full. */
  private static long perLoopCeiling(EventLoopGroup group) {
    TransportConfig config = group.config();
    long slabs = 2L * (1 + config.slabPoolSize()) * Math.max(config.slabSize(), 64 * 1024);
    long tls = 2L * TlsLoopBuffers.MAX_PACKET;
    return group.loops().size() * (slabs + tls + config.stagingSize());
  }
}
