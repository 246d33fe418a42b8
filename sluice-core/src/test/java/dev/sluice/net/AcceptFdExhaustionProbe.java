package dev.sluice.net;

import dev.sluice.memory.Chunk;
import dev.sluice.testing.ChildJvm;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The child side of {@link NativeFaultsTest}'s accept under EMFILE, on a group of two loops (on
 * epoll, two SO_REUSEPORT sockets, each accepted on by its own loop with accept4): connections
 * already open echo throughout, clients that connect while no descriptor is left wait in the
 * backlog while accept backs off, and are accepted and echo once descriptors are free. It reports
 * the accept failures counted while the open connections did their round trips, and how long those
 * took, so the parent can hold them to the back-off schedule.
 */
public final class AcceptFdExhaustionProbe {
  static final int HELD = 4;
  static final int WAITING = 6;
  static final int ROUNDS = 25;
  private static final long WAIT_NANOS = 20_000_000_000L;

  private AcceptFdExhaustionProbe() {}

  public static void main(String[] args) throws Exception {
    Path hogFile = Files.createFile(Path.of(args[0]).resolve("hog"));
    // A record published first, as in a server that has been running: formatting the first one
    // needs descriptors (time-zone data).
    System.getLogger("dev.sluice.net").log(System.Logger.Level.WARNING, "probe starting");
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2))) {
      Listener listener =
          group.listen(new InetSocketAddress("127.0.0.1", 0), SocketOptions.defaults(), Echo::new);
      List<SocketChannel> held = new ArrayList<>();
      for (int i = 0; i < HELD; i++) {
        held.add(SocketChannel.open(listener.localAddress()));
      }
      byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
      for (SocketChannel h : held) {
        echoes(h, ping); // every path the round trips take, loaded while descriptors are free
      }
      List<SocketChannel> waiting = new ArrayList<>();
      for (int i = 0; i < WAITING; i++) {
        waiting.add(SocketChannel.open());
      }
      List<FileChannel> hogs = new ArrayList<>(25_000);
      String exhaustion;
      long acceptedWhileExhausted;
      long heldEchoes = 0;
      long failuresDuringRoundTrips;
      long roundTripNanos;
      try {
        exhaustion = exhaust(hogFile, hogs);
        for (SocketChannel client : waiting) {
          client.connect(listener.localAddress()); // the kernel completes the handshake
        }
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (listener.acceptBackoffCount() == 0 && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        long failuresBefore = listener.acceptBackoffCount();
        long started = System.nanoTime();
        for (int round = 0; round < ROUNDS; round++) {
          for (SocketChannel h : held) {
            heldEchoes += echoes(h, ping) ? 1 : 0;
          }
        }
        roundTripNanos = System.nanoTime() - started;
        failuresDuringRoundTrips = listener.acceptBackoffCount() - failuresBefore;
        acceptedWhileExhausted = listener.acceptedCount();
      } finally {
        for (FileChannel hog : hogs) {
          hog.close();
        }
      }
      ChildJvm.report("exhaustion", exhaustion);
      ChildJvm.report("acceptedWhileExhausted", acceptedWhileExhausted);
      ChildJvm.report("heldEchoesWhileExhausted", heldEchoes);
      ChildJvm.report("failuresDuringRoundTrips", failuresDuringRoundTrips);
      ChildJvm.report("roundTripNanos", roundTripNanos);

      long deadline = System.nanoTime() + WAIT_NANOS;
      while (listener.acceptedCount() < HELD + WAITING && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      ChildJvm.report("acceptedAfter", listener.acceptedCount());
      int echoes = 0;
      for (SocketChannel client : waiting) {
        echoes += echoes(client, ping) ? 1 : 0;
        client.close();
      }
      ChildJvm.report("waitingEchoesAfter", echoes);
      int heldAfter = 0;
      for (SocketChannel h : held) {
        heldAfter += echoes(h, ping) ? 1 : 0;
        h.close();
      }
      ChildJvm.report("heldEchoesAfter", heldAfter);
    }
  }

  /** Opens {@code file} until the process runs out of descriptors; returns the error. */
  private static String exhaust(Path file, List<FileChannel> hogs) {
    while (true) {
      try {
        hogs.add(FileChannel.open(file, StandardOpenOption.READ));
      } catch (IOException e) {
        return String.valueOf(e.getMessage());
      }
    }
  }

  private static boolean echoes(SocketChannel client, byte[] sent) throws IOException {
    client.write(ByteBuffer.wrap(sent));
    ByteBuffer back = ByteBuffer.allocate(sent.length);
    while (back.hasRemaining() && client.read(back) >= 0) {
      // blocking reads until the whole echo is back
    }
    return !back.hasRemaining() && back.flip().equals(ByteBuffer.wrap(sent));
  }

  /** Echoes everything back. */
  private static final class Echo implements ChunkHandler {
    @Override
    public void onChunk(Connection connection, Chunk chunk) {
      connection.write(chunk.buffer(), error -> chunk.release());
    }
  }
}
