package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.testing.Accepted;
import dev.sluice.testing.Await;
import dev.sluice.testing.ChildJvm;
import dev.sluice.testing.Loopback;
import dev.sluice.testing.RecordingHandler;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The faults the native path must survive, on whichever transport this run of the suite is on (the
 * EINTR case needs epoll): a signal interrupting the wait, a peer resetting while a large write is
 * under way, descriptors exhausted at connect, a peer misbehaving after we closed (its descriptor
 * number reused at once), and a group stopped with connections open.
 */
class NativeFaultsTest {
  @TempDir Path dir;

  private static Loopback start(Accepted<RecordingHandler> servers) throws Exception {
    return Loopback.start(
        TransportConfig.defaults().withEventLoops(1),
        new InetSocketAddress("127.0.0.1", 0),
        servers);
  }

  /**
   * Signals aimed at the loop thread while it waits make epoll_wait fail with EINTR (the kernel
   * never restarts it); the loop must wait again and go on serving.
   */
  @Test
  void aSignalInterruptingTheWaitIsNotAnError() throws Throwable {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback = start(servers)) {
      assumeTrue(loopback.group().transport() == Transport.EPOLL, "EINTR is epoll's to handle");
      handleSignal("WINCH", true);
      long tid = loopThreadId(loopback.group().loops().getFirst().toString());
      long before = EpollPoller.interruptedWaits();
      for (int i = 0; i < 20; i++) {
        tgkill(ProcessHandle.current().pid(), tid, 28); // SIGWINCH
        Thread.sleep(5);
      }
      RecordingHandler client = new RecordingHandler();
      Connection connection = loopback.connect(client);
      Await.result(connection.write(ByteBuffer.wrap("after".getBytes())), "a write");
      Await.result(servers.next().expect(5), "the bytes, after the signals");
      assertThat(EpollPoller.interruptedWaits() - before).isPositive();
    } finally {
      handleSignal("WINCH", false);
    }
  }

  /**
   * Installs a handler that does nothing for {@code name} (or restores the default): with a
   * handler, the signal interrupts a system call; ignored or by default, it would not. Through
   * reflection: sun.misc.Signal is the JDK's supported way, but javac warns of it at every use.
   */
  private static void handleSignal(String name, boolean install) throws Exception {
    Class<?> signalClass = Class.forName("sun.misc.Signal");
    Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
    Object signal = signalClass.getConstructor(String.class).newInstance(name);
    Object handler =
        install
            ? java.lang.reflect.Proxy.newProxyInstance(
                handlerClass.getClassLoader(), new Class<?>[] {handlerClass}, (p, m, a) -> null)
            : handlerClass.getField("SIG_DFL").get(null);
    signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
  }

  /** The kernel's thread id of the thread named {@code name}, from /proc/self/task. */
  private static long loopThreadId(String name) throws Exception {
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        if (Files.readString(task.resolve("comm")).strip().equals(name)) {
          return Long.parseLong(task.getFileName().toString());
        }
      }
    }
    throw new AssertionError("no thread named " + name);
  }

  @SuppressWarnings("restricted") // the test's own native call: tgkill, to aim at one thread
  private static void tgkill(long pid, long tid, int signal) throws Throwable {
    Linker linker = Linker.nativeLinker();
    MethodHandle tgkill =
        linker.downcallHandle(
            linker.defaultLookup().find("tgkill").orElseThrow(),
            FunctionDescriptor.of(
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT));
    int rc = (int) tgkill.invokeExact((int) pid, (int) tid, signal);
    assertThat(rc).isZero();
  }

  /**
   * The peer reads a little of a large write and closes with bytes unread (the kernel answers with
   * RST): the send that meets it fails with ECONNRESET or EPIPE, never a SIGPIPE, and the
   * connection closes as a peer reset with the write failed.
   */
  @Test
  void aPeerResettingMidWriteClosesAsPeerReset() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    Socket peer = new Socket();
    try (Loopback loopback = start(servers)) {
      peer.connect(loopback.address());
      RecordingHandler server = servers.next();
      Await.result(server.active(), "accepted");
      ByteBuffer big;
      try (Arena arena = Arena.ofShared()) {
        big = arena.allocate(32 << 20).asByteBuffer();
        CompletableFuture<Void> write = server.connection().write(big);
        InputStream in = peer.getInputStream();
        in.readNBytes(1000);
        peer.setSoLinger(true, 0);
        peer.close();
        Throwable failure = null;
        try {
          write.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          failure = e.getCause();
        }
        assertThat(failure).isInstanceOf(ConnectionClosedException.class);
        assertThat(Await.result(server.closed(), "the close"))
            .isInstanceOf(CloseReason.PeerReset.class);
      }
    } finally {
      peer.close();
    }
  }

  /**
   * After we close, the peer writes and closes; the descriptor number is free and the next
   * connection likely gets it: it must see only its own bytes and events.
   */
  @Test
  void aPeerMisbehavingAfterOurCloseDisturbsNobody() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    try (Loopback loopback = start(servers)) {
      for (int round = 0; round < 20; round++) {
        try (Socket peer = new Socket()) {
          peer.connect(loopback.address());
          RecordingHandler server = servers.next();
          Await.result(server.active(), "accepted");
          server.connection().close();
          Await.result(server.closed(), "our close");
          OutputStream out = peer.getOutputStream();
          try {
            out.write("late bytes".getBytes(StandardCharsets.US_ASCII));
            out.flush();
          } catch (java.io.IOException reset) {
            // the peer may already have seen our FIN turn into RST
          }
        }
        try (Socket next = new Socket()) {
          next.connect(loopback.address());
          RecordingHandler fresh = servers.next();
          next.getOutputStream().write("mine".getBytes(StandardCharsets.US_ASCII));
          Await.result(fresh.expect(4), "the next connection's bytes");
          assertThat(fresh.text()).isEqualTo("mine");
          assertThat(fresh.connection().isOpen()).isTrue();
        }
      }
    }
  }

  /** Stopping a loop with connections open closes every one of them: no descriptor remains. */
  @Test
  void stoppingWithConnectionsOpenClosesThemAll() throws Exception {
    Accepted<RecordingHandler> servers = new Accepted<>(RecordingHandler::new);
    List<RecordingHandler> clients = new ArrayList<>();
    Loopback loopback = start(servers);
    try {
      for (int i = 0; i < 16; i++) {
        RecordingHandler client = new RecordingHandler();
        loopback.connect(client);
        Await.result(client.active(), "connected");
        clients.add(client);
      }
    } finally {
      loopback.close();
    }
    for (RecordingHandler client : clients) {
      assertThat(client.closed()).isCompletedWithValue(CloseReason.SHUTDOWN);
    }
    // The leak check after this test counts the process's descriptors.
  }

  /**
   * Out of descriptors, a connect fails its future with the reason (EMFILE) and the loop goes on;
   * once descriptors are free again, connects work.
   */
  @Test
  void aConnectOutOfDescriptorsFailsClearlyAndTheLoopGoesOn() throws Exception {
    ChildJvm.Run run =
        ChildJvm.run(
            Duration.ofMinutes(1),
            List.of("-Xmx128m", "--enable-native-access=ALL-UNNAMED"),
            ConnectFdExhaustionProbe.class,
            dir.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.results().get("exhaustion")).as(run.toString()).contains("Too many open files");
    assertThat(run.results().get("connectFailure"))
        .as(run.toString())
        .contains("ConnectException")
        .contains("Too many open files");
    assertThat(run.results()).as(run.toString()).containsEntry("echoAfter", "true");
  }

  /**
   * Out of descriptors while clients connect, on two loops (on epoll each accepts with accept4 on
   * its own SO_REUSEPORT socket): accept fails with EMFILE and that socket stops accepting for a
   * back-off that doubles from 10 ms; the connections already open echo throughout; once
   * descriptors are free, every waiting client is accepted and served. Not spinning is judged by
   * the schedule, not by a time limit: over the open connections' round trips, however long they
   * took, each socket may have failed an accept at most once per back-off that fits in that time
   * (an accept retried at every pass while the listener is ready would fail thousands of times).
   */
  @Test
  void acceptOutOfDescriptorsBacksOffWhileOpenConnectionsEchoAndResumes() throws Exception {
    ChildJvm.Run run =
        ChildJvm.run(
            Duration.ofMinutes(1),
            List.of("-Xmx128m", "--enable-native-access=ALL-UNNAMED"),
            AcceptFdExhaustionProbe.class,
            dir.toString());
    assertThat(run.exitCode()).as(run.toString()).isZero();
    assertThat(run.results().get("exhaustion")).as(run.toString()).contains("Too many open files");
    assertThat(run.number("acceptedWhileExhausted"))
        .as("accepted while exhausted: the open connections only")
        .isEqualTo(AcceptFdExhaustionProbe.HELD);
    assertThat(run.number("heldEchoesWhileExhausted"))
        .isEqualTo((long) AcceptFdExhaustionProbe.HELD * AcceptFdExhaustionProbe.ROUNDS);
    double windowMillis = run.number("roundTripNanos") / 1e6;
    int sockets = 2;
    double allowed =
        sockets * (2 + Math.log(1 + windowMillis / 10) / Math.log(2) + windowMillis / 1000);
    assertThat((double) run.number("failuresDuringRoundTrips"))
        .as("accept failures in %.1f ms of round trips; %s", windowMillis, run)
        .isLessThanOrEqualTo(allowed);
    assertThat(run.number("acceptedAfter"))
        .as(run.toString())
        .isEqualTo(AcceptFdExhaustionProbe.HELD + AcceptFdExhaustionProbe.WAITING);
    assertThat(run.number("waitingEchoesAfter")).isEqualTo(AcceptFdExhaustionProbe.WAITING);
    assertThat(run.number("heldEchoesAfter")).isEqualTo(AcceptFdExhaustionProbe.HELD);
    assertThat(run.output())
        .as("the listener says why it pauses")
        .anyMatch(line -> line.contains("Too many open files") && line.contains("pausing accepts"));
  }
}
