package dev.sluice.net;

import java.time.Duration;

/**
 * Settings of an {@link EventLoopGroup}: threads, read slabs, write staging and watermarks.
 *
 * @param eventLoops number of event loop threads
 * @param slabSize bytes per native read slab (one per loop, plus handed-off ones)
 * @param copyThreshold reads up to this size (inclusive) are copied out at exact size; larger reads
 *     hand over the slab
 * @param slabPoolSize free slabs each loop keeps for reuse
 * @param stagingSize bytes of the per-loop direct buffer through which heap buffers are written, in
 *     slices of at most this size
 * @param writeHighWatermark pending write bytes above which a connection reports not writable
 * @param writeLowWatermark pending write bytes at or below which it is writable again
 * @param maxReadsPerEvent reads from one connection before the loop serves others
 * @param maxBytesPerSocketWrite caps every socket write at this many bytes (0: no cap); a test and
 *     fault-injection hook that forces the partial-write paths
 * @param timerTick resolution of idle and connect timeouts
 * @param transport the poller and sockets the loops run on ({@link Transport#AUTO}: epoll on Linux
 *     when its native calls link, else NIO)
 * @param splicePipesPerLoop pipes each loop may hold for kernel-side forwarding ({@link
 *     ConnectionHandler#spliceTarget}, epoll only; 0: none, every read is copied)
 */
public record TransportConfig(
    int eventLoops,
    int slabSize,
    int copyThreshold,
    int slabPoolSize,
    int stagingSize,
    int writeHighWatermark,
    int writeLowWatermark,
    int maxReadsPerEvent,
    int maxBytesPerSocketWrite,
    Duration timerTick,
    Transport transport,
    int splicePipesPerLoop) {

  /** The default slab size, 64 KiB. */
  public static final int DEFAULT_SLAB_SIZE = 64 * 1024;

  /** The default copy threshold, 32 KiB (inclusive). */
  public static final int DEFAULT_COPY_THRESHOLD = 32 * 1024;

  /** The default bound on a loop's splice pipes (two descriptors each): 64. */
  public static final int DEFAULT_SPLICE_PIPES_PER_LOOP = 64;

  public TransportConfig {
    require(eventLoops >= 1, "eventLoops must be at least 1");
    require(slabSize >= 1024, "slabSize must be at least 1024 bytes");
    require(
        copyThreshold >= 0 && copyThreshold <= slabSize,
        "copyThreshold must be within 0..slabSize (" + slabSize + ")");
    require(slabPoolSize >= 0, "slabPoolSize must not be negative");
    require(stagingSize >= 1024, "stagingSize must be at least 1024 bytes");
    require(writeLowWatermark >= 0, "writeLowWatermark must not be negative");
    require(
        writeHighWatermark >= writeLowWatermark,
        "writeHighWatermark must be at least writeLowWatermark");
    require(maxReadsPerEvent >= 1, "maxReadsPerEvent must be at least 1");
    require(maxBytesPerSocketWrite >= 0, "maxBytesPerSocketWrite must not be negative");
    require(
        !timerTick.isNegative() && timerTick.toMillis() >= 1, "timerTick must be at least 1 ms");
    require(transport != null, "transport must not be null");
    require(splicePipesPerLoop >= 0, "splicePipesPerLoop must not be negative");
  }

  /**
   * Defaults: one loop per processor, 64 KiB slabs, 32 KiB copy threshold, the transport the system
   * property {@code sluice.transport} names (auto when unset).
   */
  public static TransportConfig defaults() {
    return new TransportConfig(
        Runtime.getRuntime().availableProcessors(),
        DEFAULT_SLAB_SIZE,
        DEFAULT_COPY_THRESHOLD,
        4,
        128 * 1024,
        256 * 1024,
        128 * 1024,
        16,
        0,
        Duration.ofMillis(10),
        Transport.fromSystemProperty(),
        DEFAULT_SPLICE_PIPES_PER_LOOP);
  }

  /** With {@code n} event loops. */
  public TransportConfig withEventLoops(int n) {
    return new TransportConfig(
        n,
        slabSize,
        copyThreshold,
        slabPoolSize,
        stagingSize,
        writeHighWatermark,
        writeLowWatermark,
        maxReadsPerEvent,
        maxBytesPerSocketWrite,
        timerTick,
        transport,
        splicePipesPerLoop);
  }

  /** With the given slab size and copy threshold. */
  public TransportConfig withSlab(int size, int threshold) {
    return new TransportConfig(
        eventLoops,
        size,
        threshold,
        slabPoolSize,
        stagingSize,
        writeHighWatermark,
        writeLowWatermark,
        maxReadsPerEvent,
        maxBytesPerSocketWrite,
        timerTick,
        transport,
        splicePipesPerLoop);
  }

  /** With the given write watermarks. */
  public TransportConfig withWatermarks(int low, int high) {
    return new TransportConfig(
        eventLoops,
        slabSize,
        copyThreshold,
        slabPoolSize,
        stagingSize,
        high,
        low,
        maxReadsPerEvent,
        maxBytesPerSocketWrite,
        timerTick,
        transport,
        splicePipesPerLoop);
  }

  /** With the given staging buffer size. */
  public TransportConfig withStagingSize(int size) {
    return new TransportConfig(
        eventLoops,
        slabSize,
        copyThreshold,
        slabPoolSize,
        size,
        writeHighWatermark,
        writeLowWatermark,
        maxReadsPerEvent,
        maxBytesPerSocketWrite,
        timerTick,
        transport,
        splicePipesPerLoop);
  }

  /** With every socket write capped at {@code bytes} (0: no cap). */
  public TransportConfig withMaxBytesPerSocketWrite(int bytes) {
    return new TransportConfig(
        eventLoops,
        slabSize,
        copyThreshold,
        slabPoolSize,
        stagingSize,
        writeHighWatermark,
        writeLowWatermark,
        maxReadsPerEvent,
        bytes,
        timerTick,
        transport,
        splicePipesPerLoop);
  }

  /** With the given transport. */
  public TransportConfig withTransport(Transport choice) {
    return new TransportConfig(
        eventLoops,
        slabSize,
        copyThreshold,
        slabPoolSize,
        stagingSize,
        writeHighWatermark,
        writeLowWatermark,
        maxReadsPerEvent,
        maxBytesPerSocketWrite,
        timerTick,
        choice,
        splicePipesPerLoop);
  }

  /** With at most {@code pipes} splice pipes per loop (0: no splicing). */
  public TransportConfig withSplicePipesPerLoop(int pipes) {
    return new TransportConfig(
        eventLoops,
        slabSize,
        copyThreshold,
        slabPoolSize,
        stagingSize,
        writeHighWatermark,
        writeLowWatermark,
        maxReadsPerEvent,
        maxBytesPerSocketWrite,
        timerTick,
        transport,
        pipes);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }
}
