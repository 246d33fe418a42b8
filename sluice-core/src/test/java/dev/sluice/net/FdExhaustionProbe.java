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
 * The child side of {@link AcceptBackoffTest}. It opens its client sockets first, then opens a file
 * until the process has no descriptor left, then connects: the kernel completes the handshakes, and
 * the listener's accept fails with EMFILE. Once the files are closed the pending connections must
 * be accepted and echo. The probe itself needs no new descriptor in the exhausted window.
 *
 * <p>Arguments: a directory for the file it opens, and {@code warm} (a log record was published
 * before, as in a server that has been running) or {@code cold} (the listener's warning is the
 * first record, and formatting it needs a descriptor: the listener must survive its own logging
 * failing).
 */
public final class FdExhaustionProbe {
  private static final int CLIENTS = 4;
  private static final long WAIT_NANOS = 20_000_000_000L;

  private FdExhaustionProbe() {}

  public static void main(String[] args) throws Exception {
    Path hogFile = Files.createFile(Path.of(args[0]).resolve("hog"));
    if (args[1].equals("warm")) {
      System.getLogger("dev.sluice.net").log(System.Logger.Level.WARNING, "probe starting");
    }
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      Listener listener =
          group.listen(new InetSocketAddress("127.0.0.1", 0), SocketOptions.defaults(), Echo::new);
      List<SocketChannel> clients = new ArrayList<>();
      for (int i = 0; i < CLIENTS; i++) {
        clients.add(SocketChannel.open());
      }
      List<FileChannel> hogs = new ArrayList<>(25_000);
      String exhaustion;
      long backoffsWhileExhausted;
      long acceptedWhileExhausted;
      try {
        exhaustion = exhaust(hogFile, hogs);
        for (SocketChannel client : clients) {
          client.connect(listener.localAddress());
        }
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (listener.acceptBackoffCount() == 0 && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
        Thread.sleep(500); // long enough that a spinning accept loop would count thousands
        backoffsWhileExhausted = listener.acceptBackoffCount();
        acceptedWhileExhausted = listener.acceptedCount();
      } finally {
        for (FileChannel hog : hogs) {
          hog.close();
        }
      }
      ChildJvm.report("exhaustion", exhaustion);
      ChildJvm.report("descriptorsOpened", hogs.size());
      ChildJvm.report("backoffsWhileExhausted", backoffsWhileExhausted);
      ChildJvm.report("acceptedWhileExhausted", acceptedWhileExhausted);

      long deadline = System.nanoTime() + WAIT_NANOS;
      while (listener.acceptedCount() < CLIENTS && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      ChildJvm.report("acceptedAfter", listener.acceptedCount());
      int echoes = 0;
      for (int i = 0; i < clients.size(); i++) {
        echoes += echoes(clients.get(i), "ping " + i) ? 1 : 0;
        clients.get(i).close();
      }
      ChildJvm.report("echoes", echoes);
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

  private static boolean echoes(SocketChannel client, String text) throws IOException {
    byte[] sent = text.getBytes(StandardCharsets.US_ASCII);
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
