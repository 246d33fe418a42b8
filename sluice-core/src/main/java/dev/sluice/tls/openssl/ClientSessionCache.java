package dev.sluice.tls.openssl;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sessions an OpenSSL client keeps to resume, one per server (its address and the name sent):
 * at most a capacity of them, the least recently used freed beyond it. Each held {@code
 * SSL_SESSION} is one reference this cache owns and frees (on replacement, eviction, {@link
 * #clear}), so none outlives the cache. A TLS 1.3 session is taken out when offered (a ticket is
 * for one use, RFC 8446 appendix C.4); the server's new ticket replaces it. A TLS 1.2 one stays for
 * the next connection. Any thread: the loops of one client share it.
 */
final class ClientSessionCache {
  private static final AtomicLong LIVE = new AtomicLong();

  private final int capacity;
  private final LinkedHashMap<String, MemorySegment> sessions =
      new LinkedHashMap<>(16, 0.75f, true);

  ClientSessionCache(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("a session cache of " + capacity + " sessions");
    }
    this.capacity = capacity;
  }

  /** The key of a server: where it is, and the name sent to it (null: none). */
  static String key(String server, String serverName) {
    return server + "/" + (serverName == null ? "" : serverName);
  }

  /** SSL_SESSIONs held by every client cache of this process. */
  static long liveCount() {
    return LIVE.get();
  }

  /**
   * Offers {@code key}'s session to {@code ssl} ({@code SSL_set_session} takes a reference of its
   * own); a TLS 1.3 one, or one no longer resumable, leaves the cache.
   */
  void offer(String key, MemorySegment ssl) {
    MemorySegment taken = null;
    synchronized (this) {
      MemorySegment session = sessions.get(key);
      if (session == null) {
        return;
      }
      boolean resumable = resumable(session);
      if (resumable) {
        setSession(ssl, session);
      }
      if (!resumable || isTls13(session)) {
        sessions.remove(key);
        taken = session;
      }
    }
    if (taken != null) {
      free(taken);
    }
  }

  /**
   * Keeps {@code session} (a reference the caller hands over) for {@code key}, freeing the one it
   * replaces and the least recently used beyond the capacity.
   */
  void store(String key, MemorySegment session) {
    LIVE.incrementAndGet();
    MemorySegment replaced;
    List<MemorySegment> evicted = new ArrayList<>();
    synchronized (this) {
      replaced = sessions.put(key, session);
      Iterator<Map.Entry<String, MemorySegment>> oldest = sessions.entrySet().iterator();
      while (sessions.size() > capacity && oldest.hasNext()) {
        evicted.add(oldest.next().getValue());
        oldest.remove();
      }
    }
    if (replaced != null) {
      free(replaced);
    }
    evicted.forEach(ClientSessionCache::free);
  }

  int capacity() {
    return capacity;
  }

  /** Whether {@code session} is one it holds. */
  synchronized boolean holds(MemorySegment session) {
    return sessions.containsValue(session);
  }

  /** How many sessions it holds. */
  synchronized int size() {
    return sessions.size();
  }

  /** Frees every session held. */
  void clear() {
    List<MemorySegment> held;
    synchronized (this) {
      held = List.copyOf(sessions.values());
      sessions.clear();
    }
    held.forEach(ClientSessionCache::free);
  }

  private static boolean resumable(MemorySegment session) {
    try {
      return (int) OpenSsl.Lib.SSL_SESSION_IS_RESUMABLE.invokeExact(session) == 1;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  private static boolean isTls13(MemorySegment session) {
    try {
      return (int) OpenSsl.Lib.SSL_SESSION_GET_PROTOCOL_VERSION.invokeExact(session)
          == OpenSsl.TLS1_3_VERSION;
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  private static void setSession(MemorySegment ssl, MemorySegment session) {
    try {
      int ignored = (int) OpenSsl.Lib.SSL_SET_SESSION.invokeExact(ssl, session);
      OpenSsl.clearErrors(); // one that cannot be set is a full handshake, nothing more
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
  }

  private static void free(MemorySegment session) {
    try {
      OpenSsl.Lib.SSL_SESSION_FREE.invokeExact(session);
    } catch (Throwable e) {
      throw OpenSsl.rethrow(e);
    }
    LIVE.decrementAndGet();
  }
}
