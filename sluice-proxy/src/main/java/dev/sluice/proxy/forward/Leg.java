package dev.sluice.proxy.forward;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.WriteListener;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.tls.TlsConnection;
import dev.sluice.tls.TlsHandshakeListener;
import java.nio.ByteBuffer;

/**
 * One side of a {@link Pair}: the handler of that side's connection, and the pipe from it to the
 * other side. The hot path is {@link #onRead}, {@link #forward} and {@link #send}: a read, still in
 * the loop's slab, goes through the pair's {@link Relay} and is written to the peer at once; only
 * what the peer cannot take now is copied, at exact size, and this side stops reading until the
 * peer has drained it. An idle leg holds no buffer.
 */
public final class Leg implements ConnectionHandler, TlsHandshakeListener, WriteListener {
  private final Pair pair;
  private final Side side;
  private Connection connection;
  private long bytesRead;
  private long reads;
  private int lastReadBytes;

  /** Bytes of this leg's reads queued at the peer, charged to the budget (0 when drained). */
  private long charged;

  /**
   * Writes of this leg's bytes to the peer not yet completed. Its bytes are drained when this is 0,
   * whatever else the peer's connection still holds: a relay's own writes, or TLS's handshake
   * messages, which complete to no leg.
   */
  private int writesInFlight;

  /** Paused because the peer has not drained what this leg read. */
  private boolean pausedForPeer;

  /**
   * When this leg began to wait for the peer (the write-stall clock starts no earlier), or {@link
   * Long#MIN_VALUE} once the peer has taken all that was pending for it. It outlives the pause when
   * the leg's own bytes are written but bytes queued behind them (a relay's, TLS's) still wait: the
   * peer has not drained, and the clock must not start again.
   */
  private long waitingSinceNanos = Long.MIN_VALUE;

  /** Queued on the loop until the budget has room. */
  private boolean waitingForBudget;

  /** Bytes it sent were lost: reset it once the bytes pending for it are written. */
  private boolean resetWhenDrained;

  /** This side ended its output (EOF); the peer's output is shut down in turn. */
  private boolean ended;

  private boolean closed;

  /**
   * The pair let go of this leg's connection (an HTTP relay's upstream, pooled or closed after its
   * exchange): late write completions must not touch it or the pair.
   */
  private boolean detached;

  /** Bytes that arrived before the peer was connected (a ClientHello replayed), exact size. */
  private byte[] early;

  Leg(Pair pair, Side side) {
    this.pair = pair;
    this.side = side;
  }

  // ---- the hot path: read -> forward -> write, and backpressure ----

  @Override
  public void onRead(Connection c, BorrowedBytes bytes) {
    ByteBuffer data = bytes.buffer();
    counted(data.remaining());
    pair.relay().onRead(this, data);
  }

  private void counted(int n) {
    bytesRead += n;
    reads++;
    lastReadBytes = n;
    pair.countRead(side, n);
  }

  @Override
  public Connection spliceTarget(Connection c) {
    return pair.relay().spliceTarget(this);
  }

  /** A read went to the peer inside the kernel; {@code rest}: what it could not take (or null). */
  @Override
  public void onSpliced(Connection c, Connection target, int n, ByteBuffer rest) {
    counted(n);
    SpliceForward.onSpliced(this, target, rest);
  }

  /** Forwards {@code data}, read from this side, to the peer (held while the peer is not up). */
  void forward(ByteBuffer data) {
    Connection dest = peer().connection;
    if (dest == null) {
      hold(data); // the upstream is not up yet
      return;
    }
    if (!pair.forwarding() || !dest.isOpen()) {
      pair.undeliverable(this);
      return;
    }
    send(dest, data);
  }

  /** Writes {@code data} to the peer; pauses this side if the peer could not take all of it. */
  private void send(Connection dest, ByteBuffer data) {
    writesInFlight++;
    dest.writeTransient(data, this);
    chargePending(dest);
  }

  /**
   * Writes {@code copy}, this leg's bytes in a buffer of its own, to the peer, as {@link #send}.
   */
  void sendCopy(Connection dest, ByteBuffer copy) {
    writesInFlight++;
    dest.write(copy, this);
    chargePending(dest);
  }

  /** Charges what is pending at {@code dest} to the budget and pauses this side until it drains. */
  private void chargePending(Connection dest) {
    long pending = dest.pendingWriteBytes();
    if (pending > 0) {
      long more = pending - charged;
      if (more > 0) {
        charged = pending;
        pair.budget().charge(more);
      }
      if (!pausedForPeer) {
        pausedForPeer = true;
        if (waitingSinceNanos == Long.MIN_VALUE || dest.lastWriteNanos() > waitingSinceNanos) {
          waitingSinceNanos = connection.loop().nanoTime(); // else the peer took nothing since
        }
        connection.pauseReading();
        pair.onBackpressure();
      }
    }
  }

  /** A write of this leg's bytes to the peer completed or failed. */
  @Override
  public void onWriteComplete(Throwable error) {
    writesInFlight--;
    Connection dest = peer().connection;
    if (charged > 0 && (error != null || dest == null || writesInFlight == 0)) {
      pair.budget().release(charged);
      charged = 0;
    }
    if (detached) {
      return;
    }
    if (error != null && dest == null) {
      // Its peer's connection was let go of (an HTTP relay's upstream lost before its response:
      // the request is sent again on a new one, or answered): the relay has dealt with the loss.
      if (writesInFlight == 0 && pausedForPeer) {
        pausedForPeer = false;
        waitingSinceNanos = Long.MIN_VALUE;
      }
      return;
    }
    if (error != null) {
      pair.undeliverable(this); // what it read is lost: its sender must not see a clean end
      return;
    }
    Leg owed = peer();
    if (owed.resetWhenDrained && dest != null && dest.isOpen() && writesInFlight == 0) {
      dest.reset(); // it has all it was owed; what it sent was lost
    }
    if (pausedForPeer && charged == 0) {
      pausedForPeer = false;
      if (dest != null && dest.pendingWriteBytes() > 0) {
        pair.onBackpressure(); // others' bytes still wait there: the write-stall clock runs on
      } else {
        waitingSinceNanos = Long.MIN_VALUE;
      }
      resumeIfRelayWants();
      pair.relay().onDrained(this);
    }
  }

  // ---- what others may know ----

  /** Which side this is. */
  public Side side() {
    return side;
  }

  /** This side's connection, or null before it is active. */
  public Connection connection() {
    return connection;
  }

  /** Bytes read from this side so far. */
  public long bytesRead() {
    return bytesRead;
  }

  /** Reads from this side so far (each at most its read size). */
  public long reads() {
    return reads;
  }

  /** Bytes of this side's reads still waiting at the peer. */
  public long pendingAtPeer() {
    return charged;
  }

  /** The size of the last read from this side (spliced or not). */
  int lastReadBytes() {
    return lastReadBytes;
  }

  /** Whether this side is paused until the peer drains what it read. */
  boolean pausedForPeer() {
    return pausedForPeer;
  }

  /** Whether this side ended its output (EOF). */
  boolean ended() {
    return ended;
  }

  /** Whether this side's connection closed (or never came: a refusal, a failed handshake). */
  boolean closed() {
    return closed;
  }

  Pair pair() {
    return pair;
  }

  Leg peer() {
    return pair.leg(side.other());
  }

  EventLoop loop() {
    return connection.loop();
  }

  // ---- the connection's callbacks ----

  @Override
  public void onActive(Connection c) {
    connection = c;
    pair.onLegActive(this);
  }

  @Override
  public boolean mayRead(Connection c) {
    return pair.budget().admit(this);
  }

  @Override
  public void onEndOfInput(Connection c) {
    ended = true;
    pair.onLegEnded(this);
  }

  @Override
  public void onClose(Connection c, CloseReason reason) {
    closed = true;
    pair.onLegClosed(this, reason);
  }

  @Override
  public void onHandshakeFailed(TlsConnection c, CloseReason reason) {
    if (side == Side.CLIENT) {
      closed = true;
      pair.onClientHandshakeFailed(reason);
    }
    // An upstream's failed handshake fails its connect, which the pair hears of (and may retry).
  }

  // ---- what the pair, the relay and the budget ask of a leg ----

  /** Sends what arrived before the peer was up, then reads again. */
  void startForwarding() {
    if (early != null) {
      ByteBuffer held = ByteBuffer.wrap(early);
      pair.budget().release(early.length);
      early = null;
      send(peer().connection, held);
    }
    if (!pausedForPeer) {
      resumeIfRelayWants();
    }
  }

  /** Stops reading this side, whose bytes can go nowhere, and resets it once drained. */
  void resetOnceDrained() {
    resetWhenDrained = true;
    connection.pauseReading();
  }

  /** Queues this leg for room in the budget; false when it is queued already. */
  boolean waitForBudget() {
    if (waitingForBudget) {
      return false;
    }
    waitingForBudget = true;
    return true;
  }

  /** The budget has room again. */
  void budgetAvailable() {
    waitingForBudget = false;
    if (!pausedForPeer) {
      resumeIfRelayWants();
    }
  }

  /** Reads again if nothing holds this leg back and the relay wants its bytes. */
  void resumeIfWanted() {
    if (!pausedForPeer && !waitingForBudget) {
      resumeIfRelayWants();
    }
  }

  /** Stops reading this side until {@link #resumeIfWanted} (a relay holding what it read). */
  void pauseReads() {
    if (connection != null && connection.isOpen()) {
      connection.pauseReading();
    }
  }

  private void resumeIfRelayWants() {
    if (!detached
        && pair.relay().wantsReads(this)
        && connection != null
        && connection.isOpen()
        && !closed
        && !resetWhenDrained) {
      connection.resumeReading();
    }
  }

  /** Shuts down this side's output: its peer ended its own. */
  void shutdownOutput() {
    if (connection != null && connection.isOpen()) {
      connection.shutdownOutput();
    }
  }

  /** The pair let go of this leg's connection: from now on the leg is inert. */
  void detach() {
    detached = true;
  }

  /** Whether nothing this leg read is pending at its peer, nor anything at its own connection. */
  boolean settled() {
    return charged == 0
        && early == null
        && (connection == null || !connection.isOpen() || connection.pendingWriteBytes() == 0);
  }

  /** The pair refused the client before its leg was active: this side will never come. */
  void refused() {
    closed = true;
  }

  /**
   * Keeps {@code data} (a copy at exact size, charged to the budget) until the peer is up, and
   * stops reading this side meanwhile.
   */
  void hold(ByteBuffer data) {
    int n = data.remaining();
    early = appendExact(early, data);
    pair.budget().charge(n);
    connection.pauseReading();
  }

  /**
   * {@code kept} (may be null) followed by the rest of {@code data}, in a new array of exactly that
   * size: what a relay holds is never larger than what it holds.
   */
  static byte[] appendExact(byte[] kept, ByteBuffer data) {
    int n = data.remaining();
    if (kept == null) {
      byte[] copy = new byte[n];
      data.get(copy);
      return copy;
    }
    byte[] joined = new byte[kept.length + n];
    System.arraycopy(kept, 0, joined, 0, kept.length);
    data.get(joined, kept.length, n);
    return joined;
  }

  /** Whether bytes of this leg's are pending at its peer, kept early, or maybe left unread. */
  boolean holdsBytes() {
    return charged > 0
        || early != null
        || pausedForPeer
        || waitingForBudget
        || (connection != null && connection.isOpen() && connection.pendingWriteBytes() > 0);
  }

  /**
   * Bytes pending either way at this side, or this side held back: not idle, however quiet. Both
   * legs are active.
   */
  boolean busy() {
    return charged > 0 || pausedForPeer || waitingForBudget || connection.pendingWriteBytes() > 0;
  }

  /**
   * Since when the peer has taken none of the bytes pending for it, or {@link Long#MIN_VALUE} when
   * nothing is pending there: since this leg began to wait on it (its own bytes, or bytes queued
   * behind them), or, for bytes that were never this leg's (a relay's, TLS's), since the peer last
   * took any.
   */
  long stalledSinceNanos() {
    Connection dest = peer().connection;
    if (dest == null || dest.pendingWriteBytes() == 0) {
      return Long.MIN_VALUE;
    }
    return Math.max(waitingSinceNanos, dest.lastWriteNanos());
  }

  /** Gives back what this leg holds against the budget: the pair has ended. */
  void releaseAll() {
    long held = charged + (early == null ? 0 : early.length);
    charged = 0;
    early = null;
    if (held > 0) {
      pair.budget().release(held);
    }
  }

  @Override
  public String toString() {
    return side.name().toLowerCase(java.util.Locale.ROOT)
        + "["
        + (connection == null ? "-" : Endpoint.format(connection.remoteAddress()))
        + " read "
        + bytesRead
        + " B"
        + (charged > 0 ? ", " + charged + " B pending at peer" : "")
        + (pausedForPeer ? ", paused" : "")
        + (waitingForBudget ? ", waiting for budget" : "")
        + (ended ? ", ended" : "")
        + "]";
  }
}
