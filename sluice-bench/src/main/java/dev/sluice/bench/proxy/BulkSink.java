package dev.sluice.bench.proxy;

import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The upstream of a one-way bulk workload: a plain blocking JDK server, a process of its own, that
 * reads every byte the proxy forwards, checks it against the client's stream and echoes nothing.
 * Each connection gets a platform thread (a blocking read is one system call, no virtual-thread
 * parking) and a {@value #BUFFER}-byte direct buffer, so the sink reads faster than a proxy can
 * forward. The client's streams carry seeds 0 to {@link #STREAMS} - 1; the sink tells which stream
 * a connection carries by its first {@value #IDENTIFYING_BYTES} bytes (the project's pattern
 * differs per seed), so bytes crossed between connections, or a stream arriving twice, fail the
 * run.
 *
 * <p>Protocol: LISTENING (the port); then the harness's TALLY with {@code sent} (each stream's
 * length as the client wrote it, {@code seed:bytes} separated by commas) and {@code waitMs}; the
 * sink waits that long at most for every stream's end (the proxy forwards the client's FIN) and
 * answers TALLY with the bytes received, when the last stream ended ({@code System.nanoTime()}:
 * CLOCK_MONOTONIC, one clock for every process on the machine) and the integrity verdict: a wrong
 * byte, a stream shorter or longer than sent, or one that never ended fails it. With {@code
 * --corrupt-at N} the sink flips the byte at offset N of every stream before checking it.
 */
public final class BulkSink implements ChildProgram {
  /** The param holding how many streams the client sends (seeds 0 .. n-1). */
  public static final String STREAMS = "sinkStreams";

  private static final int BUFFER = 256 * 1024;

  /** Enough of a stream to tell its seed: the first block's offset stamp and 8 filler bytes. */
  private static final int IDENTIFYING_BYTES = PayloadPattern.STAMP + 8;

  /** One stream as it arrived: checked as it came, its end once the connection ended. */
  private static final class Arrival {
    final long seed;
    final PatternVerifier verifier;
    volatile long endNanos;

    Arrival(PayloadPattern pattern) {
      this.seed = pattern.seed();
      this.verifier = pattern.verifier();
    }
  }

  private final Integrity integrity = new Integrity();
  private PayloadPattern[] patterns;
  private AtomicReferenceArray<Arrival> arrivals;

  @Override
  public void run(ChildControl control) throws Exception {
    Corruption corruption = Corruption.from(control.params());
    int streams = control.params().intCount(STREAMS);
    patterns = new PayloadPattern[streams];
    for (int seed = 0; seed < streams; seed++) {
      patterns[seed] = new PayloadPattern(seed);
    }
    arrivals = new AtomicReferenceArray<>(streams);
    try (ServerSocketChannel server = ServerSocketChannel.open()) {
      server.bind(
          new InetSocketAddress(
              "127.0.0.1", Integer.parseInt(control.params().string(EchoUpstream.PORT))),
          4096);
      control.send("LISTENING", "port", ((InetSocketAddress) server.getLocalAddress()).getPort());
      Thread.ofPlatform()
          .name("sink-accept")
          .daemon(true)
          .start(
              () -> {
                for (int i = 0; server.isOpen(); i++) {
                  SocketChannel channel;
                  try {
                    channel = server.accept();
                  } catch (IOException e) {
                    return; // closed at EXIT
                  }
                  Thread.ofPlatform()
                      .name("sink-", i)
                      .daemon(true)
                      .start(() -> drain(channel, corruption));
                }
              });
      Message tally = control.await("TALLY");
      control.send("TALLY", tally(tally.field("sent"), tally.longValue("waitMs")));
      control.await("EXIT");
    }
  }

  private void drain(SocketChannel channel, Corruption corruption) {
    Arrival arrival = null;
    long offset = 0;
    ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER);
    try (channel) {
      while (channel.read(buffer) >= 0) {
        if (arrival == null && buffer.position() < IDENTIFYING_BYTES) {
          continue; // too few bytes yet to tell the stream
        }
        buffer.flip();
        corruption.apply(buffer, offset);
        if (arrival == null) {
          arrival = identify(buffer);
          if (arrival == null) {
            return;
          }
        }
        arrival.verifier.update(buffer);
        offset += buffer.remaining();
        buffer.clear();
      }
      if (arrival == null && buffer.position() > 0) {
        integrity.fail(
            "an upstream connection ended after "
                + buffer.position()
                + " bytes, too few to tell which stream it carried");
      }
      // A connection that ended with no bytes is the harness's readiness probe: not a stream.
    } catch (IOException e) {
      if (arrival == null && buffer.position() == 0) {
        // The readiness probe again: HAProxy resets the upstream side of a connection whose client
        // left first. A stream lost this way still fails the tally: it never reached the upstream.
        return;
      }
      integrity.fail(
          (arrival == null ? "an upstream connection" : "stream " + arrival.seed)
              + " failed after "
              + offset
              + " bytes: "
              + e);
    } finally {
      if (arrival != null) {
        arrival.endNanos = System.nanoTime();
      }
    }
  }

  /** The arrival of the stream {@code first} begins, or null (the failure recorded) if none. */
  private Arrival identify(ByteBuffer first) {
    for (int seed = 0; seed < patterns.length; seed++) {
      ByteBuffer expected = ByteBuffer.wrap(patterns[seed].bytes(0, IDENTIFYING_BYTES));
      if (first.slice(first.position(), IDENTIFYING_BYTES).equals(expected)) {
        Arrival arrival = new Arrival(patterns[seed]);
        if (!arrivals.compareAndSet(seed, null, arrival)) {
          integrity.fail("stream " + seed + " arrived on two upstream connections");
          return null;
        }
        return arrival;
      }
    }
    integrity.fail(
        "an upstream connection's first "
            + IDENTIFYING_BYTES
            + " bytes begin none of the client's "
            + patterns.length
            + " streams");
    return null;
  }

  private Map<String, Object> tally(String sent, long waitMs) throws InterruptedException {
    Map<Integer, Long> expected = new LinkedHashMap<>();
    for (String entry : sent.split(",")) {
      int colon = entry.indexOf(':');
      expected.put(
          Integer.parseInt(entry.substring(0, colon)), Long.parseLong(entry.substring(colon + 1)));
    }
    long deadline = System.nanoTime() + waitMs * 1_000_000;
    while (!allEnded(expected) && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    long bytes = 0;
    long lastEnd = 0;
    for (Map.Entry<Integer, Long> e : expected.entrySet()) {
      int seed = e.getKey();
      Arrival arrival = seed < patterns.length ? arrivals.get(seed) : null;
      if (arrival == null) {
        integrity.fail("stream " + seed + " never reached the upstream");
        continue;
      }
      long end = arrival.endNanos;
      if (end == 0) {
        integrity.fail(
            "stream "
                + seed
                + " had not ended at the upstream "
                + waitMs
                + " ms after the client finished it ("
                + arrival.verifier.offset()
                + " of "
                + e.getValue()
                + " bytes received)");
        continue;
      }
      bytes += arrival.verifier.offset();
      lastEnd = Math.max(lastEnd, end);
      arrival.verifier.finish(e.getValue());
      integrity.check(arrival.verifier, "stream " + seed);
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("bytes", bytes);
    fields.put("lastEndNanos", lastEnd);
    return integrity.addTo(fields);
  }

  private boolean allEnded(Map<Integer, Long> expected) {
    for (int seed : expected.keySet()) {
      Arrival arrival = seed < patterns.length ? arrivals.get(seed) : null;
      if (arrival == null || arrival.endNanos == 0) {
        return false;
      }
    }
    return true;
  }
}
