package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import dev.sluice.memory.LeakTracker;
import dev.sluice.memory.SlabChunk;
import dev.sluice.testing.Await;
import dev.sluice.testing.FreePorts;
import dev.sluice.testing.RecordingHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What happens to calls, chunks and callbacks that meet a group while it shuts down. */
class ShutdownRaceTest {
  @TempDir Path dir;

  @Test
  void aSlabChunkReleasedAfterItsLoopStoppedIsFreed() throws Exception {
    EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    CompletableFuture<Chunk> kept = new CompletableFuture<>();
    Listener listener =
        group.listen(
            new InetSocketAddress("127.0.0.1", 0),
            SocketOptions.defaults(),
            () ->
                new RecordingHandler() {
                  @Override
                  public void onRead(Connection connection, BorrowedBytes bytes) {
                    if (bytes.length() > TransportConfig.DEFAULT_COPY_THRESHOLD) {
                      Chunk chunk = bytes.take(); // a whole-slab hand-off, kept past the loop
                      if (!kept.complete(chunk)) {
                        chunk.release();
                      }
                    }
                  }
                });
    try (Socket client = new Socket("127.0.0.1", port(listener))) {
      OutputStream out = client.getOutputStream();
      byte[] burst = new byte[60_000];
      Chunk chunk = null;
      for (int i = 0; i < 200 && chunk == null; i++) {
        out.write(burst);
        out.flush();
        Thread.sleep(5);
        chunk = kept.getNow(null);
      }
      chunk = Await.result(kept, "a read larger than the copy threshold");
      assertThat(chunk).isInstanceOf(SlabChunk.class);
      group.close();
      chunk.release();
    }
    assertThat(LeakTracker.live()).as("slabs live after the release").isEmpty();
    assertThat(group.memoryStats().slabBytesReserved()).isZero();
    assertThat(group.memoryStats().handedOffChunks()).isZero();
  }

  @Test
  void aReconnectFromOnCloseDuringShutdownFailsItsFuture() throws Exception {
    List<CompletableFuture<Connection>> reconnects = new CopyOnWriteArrayList<>();
    // One loop: every client closes in the loop's shutdown, none because the server went first.
    EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    Listener listener =
        group.listen(
            new InetSocketAddress("127.0.0.1", 0), SocketOptions.defaults(), RecordingHandler::new);
    long fdsBefore = openFileDescriptors();
    for (int i = 0; i < 10; i++) {
      Await.result(
          group.connect(
              listener.localAddress(),
              SocketOptions.defaults(),
              new RecordingHandler() {
                @Override
                public void onClose(Connection connection, CloseReason reason) {
                  super.onClose(connection, reason);
                  reconnects.add(
                      connection
                          .loop()
                          .connect(
                              listener.localAddress(),
                              SocketOptions.defaults(),
                              new RecordingHandler()));
                }
              }),
          "a client");
    }
    group.close();
    assertThat(reconnects).hasSize(10);
    for (CompletableFuture<Connection> reconnect : reconnects) {
      assertThat(Await.failure(reconnect, "a reconnect made during shutdown"))
          .isInstanceOf(ConnectException.class)
          .hasMessageContaining("shut");
    }
    assertThat(openFileDescriptors()).isLessThanOrEqualTo(fdsBefore);
  }

  @Test
  void listenAndConnectOnAClosedGroupFailCleanly() throws Exception {
    EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    group.close();
    int port = FreePorts.loopback();
    InetSocketAddress tcp = new InetSocketAddress("127.0.0.1", port);
    UnixDomainSocketAddress unix = UnixDomainSocketAddress.of(dir.resolve("closed.sock"));
    assertThatThrownBy(() -> group.listen(tcp, SocketOptions.defaults(), RecordingHandler::new))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("shut down");
    assertThatThrownBy(() -> group.listen(unix, SocketOptions.defaults(), RecordingHandler::new))
        .isInstanceOf(IOException.class);
    try (ServerSocket rebound = new ServerSocket()) {
      rebound.bind(tcp); // the refused listener did not keep the port
    }
    assertThat(Files.exists(unix.getPath())).as("the refused listener's socket file").isFalse();

    CompletableFuture<Connection> connect =
        group.connect(tcp, SocketOptions.defaults(), new RecordingHandler());
    assertThat(Await.failure(connect, "a connect on a closed group"))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("shut down");
  }

  @Test
  void listenRacingCloseNeverLeaksTheSocket() throws Exception {
    long fdsBefore = openFileDescriptors();
    for (int i = 0; i < 30; i++) {
      EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
      UnixDomainSocketAddress unix = UnixDomainSocketAddress.of(dir.resolve("race" + i + ".sock"));
      List<Throwable> unexpected = new ArrayList<>();
      Thread opener =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      group.listen(unix, SocketOptions.defaults(), RecordingHandler::new);
                      group.connect(unix, SocketOptions.defaults(), new RecordingHandler());
                    } catch (IOException refused) {
                      // the group was closed first
                    } catch (Throwable t) {
                      unexpected.add(t);
                    }
                  });
      group.close();
      opener.join();
      assertThat(unexpected).isEmpty();
      Await.until(
          () -> !Files.exists(unix.getPath()), () -> "the socket file " + unix + " to go away");
    }
    Await.until(
        () -> openFileDescriptors() <= fdsBefore,
        () -> "file descriptors back to " + fdsBefore + " (now " + openFileDescriptors() + ")");
  }

  @Test
  void aClosedListenerIsUnboundWhenCloseReturns() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2))) {
      for (int i = 0; i < 20; i++) {
        UnixDomainSocketAddress unix = UnixDomainSocketAddress.of(dir.resolve("again.sock"));
        Listener listener = group.listen(unix, SocketOptions.defaults(), RecordingHandler::new);
        listener.close();
        Listener again = group.listen(unix, SocketOptions.defaults(), RecordingHandler::new);
        again.close();
        Listener tcp =
            group.listen(
                new InetSocketAddress("127.0.0.1", 0),
                SocketOptions.defaults(),
                RecordingHandler::new);
        InetSocketAddress bound = (InetSocketAddress) tcp.localAddress();
        tcp.close();
        try (ServerSocket rebound = new ServerSocket()) {
          rebound.setReuseAddress(false);
          rebound.bind(bound);
        }
      }
    }
  }

  private static int port(Listener listener) {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /**
   * Closing a group again (which {@link EventLoopGroup#closeAsync} allows) wakes its stopped loops:
   * on epoll that wrote 8 bytes to the loop's eventfd number, closed by then and taken by whatever
   * the process opened next (here a file).
   */
  @Test
  void closingAStoppedGroupAgainWritesToNoDescriptorThatTookItsNumbers() throws Exception {
    List<Integer> before = eventfds();
    EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    List<Integer> ours = new ArrayList<>(eventfds());
    ours.removeAll(before);
    assertThat(ours).as("the loop's eventfd (epoll's and NIO's selector's alike)").hasSize(1);
    Path wakeFd = Path.of("/proc/self/fd", ours.getFirst().toString());
    group.close();
    List<FileChannel> files = new ArrayList<>();
    try {
      Path taker = null;
      for (int i = 0; i < 256 && taker == null; i++) { // the lowest free number goes first
        Path file = dir.resolve("after-close-" + i);
        files.add(FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE));
        if (Files.exists(wakeFd) && Files.isSameFile(wakeFd, file)) {
          taker = file;
        }
      }
      assertThat(taker).as("a file that took the eventfd's number").isNotNull();

      group.close();
      group.closeAsync().join();

      assertThat(Files.size(taker)).as("bytes in the file that took the eventfd's number").isZero();
    } finally {
      for (FileChannel file : files) {
        file.close();
      }
    }
  }

  private static List<Integer> eventfds() throws IOException {
    List<Integer> numbers = new ArrayList<>();
    for (int fd : openFileDescriptorNumbers()) {
      try {
        Path target = Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd)));
        if (target.toString().equals("anon_inode:[eventfd]")) {
          numbers.add(fd);
        }
      } catch (IOException closedMeanwhile) {
        // not ours to count
      }
    }
    return numbers;
  }

  private static List<Integer> openFileDescriptorNumbers() throws IOException {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.map(fd -> Integer.parseInt(fd.getFileName().toString())).toList();
    }
  }

  static long openFileDescriptors() {
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }
}
