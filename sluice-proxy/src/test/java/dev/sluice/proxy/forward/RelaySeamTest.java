package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.net.SocketOptions;
import dev.sluice.net.TransportConfig;
import dev.sluice.proxy.config.ReadSizes;
import dev.sluice.proxy.config.TimeoutSettings;
import dev.sluice.proxy.testing.ScriptedUpstream;
import dev.sluice.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay seam with real sockets, driven by a relay shaped like HTTP/1's: it reads a first line
 * (a head) before any upstream exists, connects once the line is complete, rewrites it, and then
 * hands the pair to the raw relay (an Upgrade); a bad line closes the pair with a cause and no
 * upstream is ever tried.
 */
class RelaySeamTest {
  private final BlockingQueue<Pair> closed = new LinkedBlockingQueue<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private EventLoopGroup group;
  private Listener listener;
  private ScriptedUpstream upstream;
  private Owner owner;

  @BeforeEach
  void start() throws IOException {
    upstream = ScriptedUpstream.start();
    group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1));
    owner = new Owner(parse(upstream.address()));
    listener =
        group.listen(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            SocketOptions.defaults(),
            () -> new Pair(owner).client());
  }

  @AfterEach
  void stop() throws IOException {
    listener.close();
    group.close();
    upstream.close();
  }

  @Test
  void aRelayHoldsTheHeadBeforeAnyUpstreamConnectsOnceItIsParsedThenRelaysRaw() throws Exception {
    try (Socket client = connect()) {
      client.getOutputStream().write(ascii("HELLO"));
      Await.until(() -> events.contains("5 B held, no upstream"), () -> "events " + events);
      assertThat(upstream.waiting()).isZero();

      client.getOutputStream().write(ascii(" world\nand then raw bytes"));
      try (Socket server = upstream.next()) {
        server.setSoTimeout((int) Await.PATIENCE.toMillis());
        InputStream fromProxy = server.getInputStream();
        assertThat(readLine(fromProxy)).isEqualTo("HELLO world via-relay");
        assertThat(new String(fromProxy.readNBytes(18), StandardCharsets.US_ASCII))
            .isEqualTo("and then raw bytes"); // the rest of what came with the head
        client.getOutputStream().write(ascii(" and more"));
        assertThat(new String(fromProxy.readNBytes(9), StandardCharsets.US_ASCII))
            .isEqualTo(" and more"); // read by the raw relay now
        server.getOutputStream().write(ascii("reply"));
        server.shutdownOutput();
        assertThat(client.getInputStream().readAllBytes()).isEqualTo(ascii("reply"));
        client.shutdownOutput();
        assertThat(fromProxy.read()).isEqualTo(-1);
      }
    }
    Pair pair = closed.poll(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(pair).isNotNull();
    assertThat(pair.cause()).isEqualTo(CloseCause.UPSTREAM_EOF);
    assertThat(pair.facts().connectAttempts()).isEqualTo(1);
    assertThat(pair.client().bytesRead()).isEqualTo(5 + 25 + 9);
    assertThat(pair.upstream().bytesRead()).isEqualTo(5);
    assertThat(events).startsWith("started, no upstream", "5 B held, no upstream").endsWith("head");
    assertThat(events).filteredOn(e -> e.contains("held")).allMatch(e -> e.endsWith("no upstream"));
  }

  @Test
  void aRelayClosesThePairWithItsCauseAndNoUpstreamIsTried() throws Exception {
    try (Socket client = connect()) {
      client.getOutputStream().write(ascii("BAD\n"));
      assertThat(client.getInputStream().read()).isEqualTo(-1);
    }
    Pair pair = closed.poll(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(pair).isNotNull();
    assertThat(pair.cause()).isEqualTo(CloseCause.CLIENT_ERROR);
    assertThat(pair.causeDetail()).isEqualTo("a bad first line");
    assertThat(pair.facts().connectAttempts()).isZero();
    assertThat(pair.facts().target()).isNull();
    assertThat(upstream.waiting()).isZero();
  }

  @Test
  void aLegWhosePeerHoldsARelaysOwnBytesBehindItsResumesOnceItsOwnAreWritten() throws Exception {
    // What a relay writes to a leg's peer itself (a header, an answer; TLS's own handshake
    // messages too) completes to no leg. Queued behind the upstream's bytes at a client that
    // reads nothing yet, it is still pending when the leg's last write completes.
    int streamed = 4 << 20;
    int tail = 16 << 20;
    owner.relays = () -> new RawWithATail(tail, Tail.WHEN_BACKED_UP);
    try (Socket client = lateReader()) {
      try (Socket server = upstream.next()) {
        streamUntilBroken(server, 'u', streamed);
        Await.until(
            () -> events.contains("tail queued"), () -> "no backed-up client yet: " + events);
        long[] counts = new long[256];
        int runsOfT = 0;
        int previous = -1;
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = client.getInputStream().read(buffer)) > 0; ) {
          for (int i = 0; i < n; i++) {
            int b = buffer[i] & 0xff;
            counts[b]++;
            if (b == 't' && previous != 't') {
              runsOfT++;
            }
            previous = b;
          }
        }
        assertThat(counts['u']).as("the upstream's bytes").isEqualTo(streamed);
        assertThat(counts['t']).as("the relay's own bytes").isEqualTo(tail);
        assertThat(runsOfT).as("the relay's bytes in one piece").isEqualTo(1);
        client.shutdownOutput();
        assertThat(server.getInputStream().read()).isEqualTo(-1);
      }
    }
    Pair pair = closed.poll(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(pair).isNotNull();
    assertThat(pair.cause()).isEqualTo(CloseCause.UPSTREAM_EOF);
    assertThat(owner.budget.used()).isZero();
  }

  @Test
  void aPeerThatTakesNothingOfARelaysBytesBehindALegsIsCutAfterTheWriteStall() throws Exception {
    // The relay's bytes wait behind the upstream's at a client that reads the upstream's bytes and
    // then nothing more, and the relay reads no more from the upstream: the leg's own writes are
    // done, the client holds the relay's bytes, and only the write stall can end the pair.
    owner.timeouts = oneSecondWriteStall(TimeoutSettings.DEFAULTS.halfClose());
    owner.relays = () -> new RawWithATail(16 << 20, Tail.WHEN_BACKED_UP_LAST_READ);
    try (Socket client = lateReader()) {
      try (Socket server = upstream.next()) {
        streamUntilBroken(server, 'u', 8 << 20);
        Await.until(() -> events.contains("tail queued"), () -> "no tail yet: " + events);
        byte[] buffer = new byte[64 * 1024];
        boolean tailSeen = false;
        while (!tailSeen) {
          int n = client.getInputStream().read(buffer);
          assertThat(n).as("bytes before the relay's").isPositive();
          for (int i = 0; i < n; i++) {
            tailSeen |= buffer[i] == 't';
          }
        } // and reads no more
        assertCutForTheWriteStall();
      }
    }
  }

  @Test
  @SuppressWarnings("try") // the client is there to read nothing
  void aPeerThatTakesNothingOfARelaysBytesAloneIsCutAfterTheWriteStall() throws Exception {
    // The relay's bytes are the only ones pending at a client that reads nothing: the leg's one
    // write was taken whole, so no leg ever waited on the client. The upstream ends; the client
    // holds bytes for it, so the pair is busy, not half-closed and quiet.
    owner.timeouts = oneSecondWriteStall(Duration.ofSeconds(2));
    owner.relays = () -> new RawWithATail(16 << 20, Tail.AT_ONCE);
    try (Socket client = lateReader();
        Socket server = upstream.next()) {
      server.getOutputStream().write('u');
      server.shutdownOutput();
      assertThat(assertCutForTheWriteStall().causeDetail())
          .startsWith("the client took none of the");
      assertThat(events).contains("tail queued");
    }
  }

  /** When a {@link RawWithATail} queues its tail, and what it reads after. */
  private enum Tail {
    /** Once the client is backed up; the upstream is read on. */
    WHEN_BACKED_UP,
    /** Once the client is backed up; the upstream is read no more. */
    WHEN_BACKED_UP_LAST_READ,
    /** After the upstream's first read, backed up or not. */
    AT_ONCE
  }

  /**
   * The raw pipe, and {@code tail} bytes of the relay's own queued at the client behind the
   * upstream's, with no listener.
   */
  private final class RawWithATail implements Relay {
    private final int tail;
    private final Tail when;
    private boolean queued;

    RawWithATail(int tail, Tail when) {
      this.tail = tail;
      this.when = when;
    }

    @Override
    public boolean wantsReads(Leg leg) {
      return leg.pair().forwarding()
          && !(when == Tail.WHEN_BACKED_UP_LAST_READ && queued && leg.side() == Side.UPSTREAM);
    }

    @Override
    public void start(Pair pair) {
      RawRelay.INSTANCE.start(pair);
    }

    @Override
    public void onRead(Leg from, ByteBuffer data) {
      from.forward(data);
      Connection client = from.pair().client().connection();
      if (from.side() == Side.UPSTREAM
          && !queued
          && (when == Tail.AT_ONCE || client.pendingWriteBytes() > 0)) {
        queued = true;
        byte[] own = new byte[tail];
        Arrays.fill(own, (byte) 't');
        client.write(ByteBuffer.wrap(own), null);
        events.add("tail queued");
      }
    }

    @Override
    public void onUpstreamActive(Pair pair) {
      RawRelay.INSTANCE.onUpstreamActive(pair);
    }

    @Override
    public void onEnded(Leg leg) {
      RawRelay.INSTANCE.onEnded(leg);
    }
  }

  /**
   * Reads a first line in the read slab and keeps only what must wait (at exact size); once it is
   * complete, rewrites it, holds it for the upstream, connects, and turns raw when connected.
   */
  private final class LineRelay implements Relay {
    private byte[] partial = new byte[0];

    @Override
    public void start(Pair pair) {
      events.add("started, " + upstreamState(pair));
      pair.client().connection().resumeReading(); // no upstream yet: the head is read first
    }

    @Override
    public void onRead(Leg from, ByteBuffer data) {
      int end = indexOf(data, (byte) '\n');
      if (end < 0) {
        byte[] more = Arrays.copyOf(partial, partial.length + data.remaining());
        data.get(more, partial.length, data.remaining());
        partial = more;
        events.add(partial.length + " B held, " + upstreamState(from.pair()));
        return;
      }
      byte[] line = Arrays.copyOf(partial, partial.length + end - data.position());
      data.get(line, partial.length, end - data.position());
      data.get(); // the newline
      partial = null;
      String head = new String(line, StandardCharsets.US_ASCII);
      if (head.equals("BAD")) {
        from.pair().close(CloseCause.CLIENT_ERROR, "a bad first line", false);
        return;
      }
      events.add("head");
      byte[] rewritten = ascii(head + " via-relay\n");
      ByteBuffer held = ByteBuffer.allocate(rewritten.length + data.remaining());
      held.put(rewritten).put(data).flip();
      from.hold(held);
      from.pair().connectUpstream();
    }

    @Override
    public void onUpstreamActive(Pair pair) {
      pair.relay(RawRelay.INSTANCE);
      RawRelay.INSTANCE.onUpstreamActive(pair);
    }

    @Override
    public void onEnded(Leg leg) {
      RawRelay.INSTANCE.onEnded(leg);
    }

    private static String upstreamState(Pair pair) {
      return pair.upstream().connection() == null ? "no upstream" : "upstream up";
    }

    private static int indexOf(ByteBuffer data, byte b) {
      for (int i = data.position(); i < data.limit(); i++) {
        if (data.get(i) == b) {
          return i;
        }
      }
      return -1;
    }
  }

  private record Target(SocketAddress address) implements Pair.Upstream {
    @Override
    public String name() {
      return "up";
    }
  }

  private final class Owner implements Pair.Owner {
    private final InFlightBudget.Share budget = new InFlightBudget(1 << 20).share("seam");
    private final Target target;
    Supplier<Relay> relays = LineRelay::new;
    TimeoutSettings timeouts = TimeoutSettings.DEFAULTS;

    Owner(SocketAddress upstream) {
      this.target = new Target(upstream);
    }

    @Override
    public String name() {
      return "seam";
    }

    @Override
    public InFlightBudget.Share budget() {
      return budget;
    }

    @Override
    public TimeoutSettings timeouts() {
      return timeouts;
    }

    @Override
    public ReadSizes reads() {
      return new ReadSizes(ReadSizes.DEFAULT, ReadSizes.DEFAULT);
    }

    @Override
    public UpstreamChoice choose(Pair pair, List<Pair.Upstream> tried) {
      return new UpstreamChoice.To(target);
    }

    @Override
    public SocketOptions upstreamOptions() {
      return SocketOptions.defaults().withConnectTimeout(timeouts().connect());
    }

    @Override
    public Relay relay(Pair pair) {
      return relays.get();
    }

    @Override
    public void onClosed(Pair pair) {
      closed.add(pair);
    }
  }

  /** The defaults, with a write stall of 1 s and {@code halfClose}. */
  private static TimeoutSettings oneSecondWriteStall(Duration halfClose) {
    TimeoutSettings d = TimeoutSettings.DEFAULTS;
    return new TimeoutSettings(
        d.connect(),
        d.idle(),
        d.handshake(),
        halfClose,
        d.maxConnectionDuration(),
        Duration.ofSeconds(1));
  }

  /** A client with a small receive buffer, connected: one that reads late backs the proxy up. */
  private Socket lateReader() throws IOException {
    Socket client = new Socket();
    client.setReceiveBufferSize(64 * 1024);
    client.connect(listener.localAddress());
    client.setSoTimeout((int) Await.PATIENCE.toMillis());
    return client;
  }

  /** The one pair ended for its write stall and gave back all it held. */
  private Pair assertCutForTheWriteStall() throws InterruptedException {
    Pair pair = closed.poll(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
    assertThat(pair).as("the pair ended").isNotNull();
    assertThat(pair.cause()).isEqualTo(CloseCause.WRITE_STALL_TIMEOUT);
    assertThat(owner.budget.used()).isZero();
    return pair;
  }

  /**
   * Sends {@code count} bytes {@code b} from {@code server} on a thread of its own, then shuts its
   * output; stops early if the connection breaks (the test judges by what arrives).
   */
  private static void streamUntilBroken(Socket server, char b, int count) {
    byte[] piece = new byte[64 * 1024];
    Arrays.fill(piece, (byte) b);
    Thread.ofVirtual()
        .start(
            () -> {
              try {
                for (int sent = 0; sent < count; sent += piece.length) {
                  server.getOutputStream().write(piece);
                }
                server.shutdownOutput();
              } catch (IOException e) {
                // the pair ended
              }
            });
  }

  private Socket connect() throws IOException {
    InetSocketAddress address = (InetSocketAddress) listener.localAddress();
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setSoTimeout((int) Await.PATIENCE.toMillis());
    return socket;
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      assertThat(b).as("end of stream inside the line").isNotEqualTo(-1);
      line.write(b);
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  private static InetSocketAddress parse(String hostPort) {
    int colon = hostPort.lastIndexOf(':');
    return new InetSocketAddress(
        hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
