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
 * other side. The hot path is {@link #onRead}: the bytes just read, still in the loop's slab, are
 * written to the peer at once; only what the peer cannot take now is copied, at exact size, and
 * this side stops reading until the peer has drained it. An idle leg holds no buffer.
 */
public final class Leg implements ConnectionHandler, TlsHandshakeListener, WriteListener {
  private final Pair pair;
  private final Side side;
  Connection connection;
  long bytesRead;
  long reads;

  /** Bytes of this leg's reads queued at the peer, charged to the budget (0 when drained). */
  long charged;

  /** Paused because the peer has not drained what this leg read. */
  boolean pausedForPeer;

  /** When the pause for the peer began (the write-stall clock starts no earlier). */
  long pausedSinceNanos;

  /** Queued on the loop until the budget has room. */
  boolean waitingForBudget;

  /** Bytes it sent were lost: reset it once the bytes pending for it are written. */
  private boolean resetWhenDrained;

  /** This side ended its output (EOF); the peer's output is shut down in turn. */
  boolean ended;

  boolean closed;

  /** Bytes that arrived before the peer was connected (a ClientHello replayed), exact size. */
  private byte[] early;

  Leg(Pair pair, Side side) {
    this.pair = pair;
    this.side = side;
  }

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

  EventLoop loop() {
    return connection.loop();
  }

  private Leg peer() {
    return pair.leg(side.other());
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
  public void onRead(Connection c, BorrowedBytes bytes) {
    ByteBuffer data = bytes.buffer();
    bytesRead += data.remaining();
    reads++;
    pair.countRead(side, data.remaining());
    Connection dest = peer().connection;
    if (dest == null) {
      keepEarly(data); // the upstream is not up yet
      c.pauseReading();
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
    dest.writeTransient(data, this);
    long pending = dest.pendingWriteBytes();
    if (pending > 0) {
      long more = pending - charged;
      if (more > 0) {
        charged = pending;
        pair.budget().charge(more);
      }
      if (!pausedForPeer) {
        pausedForPeer = true;
        pausedSinceNanos = connection.loop().nanoTime();
        connection.pauseReading();
        pair.onBackpressure();
      }
    }
  }

  /** A write of this leg's bytes to the peer completed or failed. */
  @Override
  public void onWriteComplete(Throwable error) {
    Connection dest = peer().connection;
    if (charged > 0 && (error != null || dest == null || dest.pendingWriteBytes() == 0)) {
      pair.budget().release(charged);
      charged = 0;
    }
    if (error != null) {
      pair.undeliverable(this); // what it read is lost: its sender must not see a clean end
      return;
    }
    Leg owed = peer();
    if (owed.resetWhenDrained && dest != null && dest.isOpen() && dest.pendingWriteBytes() == 0) {
      dest.reset(); // it has all it was owed; what it sent was lost
    }
    if (pausedForPeer && charged == 0) {
      pausedForPeer = false;
      resumeIfForwarding();
    }
  }

  /** Stops reading this side, whose bytes can go nowhere, and resets it once drained. */
  void resetOnceDrained() {
    resetWhenDrained = true;
    connection.pauseReading();
  }

  /** The budget has room again. */
  void budgetAvailable() {
    if (!pausedForPeer) {
      resumeIfForwarding();
    }
  }

  private void resumeIfForwarding() {
    if (pair.forwarding()
        && connection != null
        && connection.isOpen()
        && !closed
        && !resetWhenDrained) {
      connection.resumeReading();
    }
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

  // ---- what the pair asks of a leg ----

  /** Sends what arrived before the peer was up, then reads again. */
  void startForwarding() {
    if (early != null) {
      ByteBuffer held = ByteBuffer.wrap(early);
      pair.budget().release(early.length);
      early = null;
      send(peer().connection, held);
    }
    if (!pausedForPeer) {
      resumeIfForwarding();
    }
  }

  /** Shuts down this side's output: its peer ended its own. */
  void shutdownOutput() {
    if (connection != null && connection.isOpen()) {
      connection.shutdownOutput();
    }
  }

  private void keepEarly(ByteBuffer data) {
    int n = data.remaining();
    byte[] kept;
    if (early == null) {
      kept = new byte[n];
      data.get(kept);
    } else {
      kept = new byte[early.length + n];
      System.arraycopy(early, 0, kept, 0, early.length);
      data.get(kept, early.length, n);
    }
    early = kept;
    pair.budget().charge(n);
  }

  /** Whether bytes of this leg's are pending at its peer, kept early, or maybe left unread. */
  boolean holdsBytes() {
    return charged > 0
        || early != null
        || pausedForPeer
        || waitingForBudget
        || (connection != null && connection.isOpen() && connection.pendingWriteBytes() > 0);
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
