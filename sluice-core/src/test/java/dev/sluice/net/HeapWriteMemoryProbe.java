package dev.sluice.net;

import dev.sluice.memory.Chunk;
import dev.sluice.memory.MemoryStats;
import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.BufferKind;
import dev.sluice.testing.ChildJvm;
import dev.sluice.testing.DigestingHandler;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.Payload;
import dev.sluice.testing.PayloadPattern;
import dev.sluice.testing.RecordingHandler;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * The child side of {@link HeapWriteMemoryTest}: writes a heap payload in one call and reports how
 * much native memory grew, as Sluice, the JDK's direct pool and NMT see it. Runs with {@code
 * -XX:NativeMemoryTracking=summary}.
 */
public final class HeapWriteMemoryProbe {
  private static final Pattern NMT_OTHER =
      Pattern.compile("- +Other \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");

  private HeapWriteMemoryProbe() {}

  public static void main(String[] args) throws Exception {
    int size = Integer.parseInt(args[0]);
    BufferPoolMXBean direct =
        ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
            .filter(pool -> pool.getName().equals("direct"))
            .findFirst()
            .orElseThrow();
    TransportConfig config = TransportConfig.defaults().withEventLoops(1);
    ChildJvm.report("stagingBytes", config.stagingSize());
    ChildJvm.report("slabBytes", config.slabSize());
    try (Payload payload = new PayloadPattern(size).newPayload(BufferKind.HEAP, size);
        EventLoopGroup senders = new EventLoopGroup(config)) {
      AtomicLong peakSluice = new AtomicLong();
      AtomicLong peakCopies = new AtomicLong();
      AtomicLong peakDirect = new AtomicLong();
      Runnable sample =
          () -> {
            MemoryStats stats = senders.memoryStats();
            peakSluice.accumulateAndGet(stats.nativeBytes(), Math::max);
            peakCopies.accumulateAndGet(stats.pendingCopyBytes(), Math::max);
            peakDirect.accumulateAndGet(direct.getMemoryUsed(), Math::max);
          };
      Accepted<SamplingReceiver> receivers =
          new Accepted<>(() -> new SamplingReceiver(config.copyThreshold(), sample));
      try (Loopback receiverSide =
          Loopback.start(config, new InetSocketAddress("127.0.0.1", 0), receivers)) {
        RecordingHandler sender = new RecordingHandler();
        Connection client =
            Await.result(
                senders.connect(receiverSide.address(), SocketOptions.defaults(), sender),
                "connect");
        long sluiceBefore = senders.memoryStats().nativeBytes();
        long directBefore = direct.getMemoryUsed();
        long nmtBefore = nmtOtherCommitted();

        client.write(payload.buffer());
        client.shutdownOutput();
        DigestingHandler.Received received =
            Await.result(receivers.next().received(), "the payload");
        Await.result(sender.closed(), "sender close");
        sample.run();
        // Still alive: a JDK temporary copy would be cached on the sender's loop thread.
        long nmtAfter = nmtOtherCommitted();

        ChildJvm.report("integrity", received.sha256().equals(payload.sha256()) ? "OK" : "FAIL");
        ChildJvm.report("bytes", received.bytes());
        ChildJvm.report("sluiceNativeGrowth", peakSluice.get() - sluiceBefore);
        ChildJvm.report("pendingCopyPeak", peakCopies.get());
        ChildJvm.report("directPoolGrowth", peakDirect.get() - directBefore);
        ChildJvm.report("nmtOtherGrowth", nmtAfter - nmtBefore);
      }
    }
  }

  /** NMT's "Other" category (Unsafe and FFM allocations, JDK temporary buffers), in bytes. */
  private static long nmtOtherCommitted() throws Exception {
    String summary =
        (String)
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "vmNativeMemory",
                    new Object[] {new String[] {"summary"}},
                    new String[] {String[].class.getName()});
    Matcher other = NMT_OTHER.matcher(summary);
    if (!other.find()) {
      throw new IllegalStateException("no Other category in NMT's summary:\n" + summary);
    }
    return Long.parseLong(other.group(2)) * 1024;
  }

  /** Samples memory on every read, i.e. all through the transfer. */
  private static final class SamplingReceiver extends DigestingHandler {
    private final Runnable sample;

    SamplingReceiver(int copyThreshold, Runnable sample) {
      super(copyThreshold);
      this.sample = sample;
    }

    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      sample.run();
      super.onChunk(connection, chunk);
    }
  }
}
