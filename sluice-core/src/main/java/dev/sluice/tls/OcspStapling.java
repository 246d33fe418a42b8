package dev.sluice.tls;

import dev.sluice.tls.OcspMessages.CertKey;
import dev.sluice.tls.OcspMessages.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.WeakReference;
import java.net.HttpURLConnection;
import java.net.URI;
import java.security.NoSuchAlgorithmException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * OCSP stapling for servers that ask for it ({@link TlsServerConfig#ocspStapling}): Sluice asks for
 * each certificate's status at the responder its authority information access names, keeps the
 * response until its nextUpdate, and asks for a new one in the background halfway there (sooner,
 * with backoff, after a failure), never on a handshake.
 *
 * <p>The OpenSSL engine is handed the response itself: its status callback copies what {@link
 * #responses} gives for the certificate the connection ended on (by SNI), or staples nothing.
 *
 * <p>The JDK's engine writes the staple (status_request in TLS 1.2 and 1.3) but has no public way
 * to be handed one: it queries the responder itself, during the handshake, on the thread that runs
 * the handshake's tasks (an event loop here), with no refresh ahead of expiry. So its requests are
 * pointed at Sluice's cache instead ({@code jdk.tls.stapling.responderURI} = {@code
 * sluice-ocsp://cache} with {@code responderOverride}, JVM-wide, documented JSSE properties), which
 * {@link OcspCacheUrls} answers from memory: a certificate with no fresh response gets no staple at
 * once. Stapling is switched on per context: {@code jdk.tls.server.enableStatusRequestExtension} is
 * read when a context is created, so it is set just for that.
 */
public final class OcspStapling {
  private static final System.Logger LOG = System.getLogger("dev.sluice.tls");
  static final String SCHEME = "sluice-ocsp";
  private static final String ENABLE = "jdk.tls.server.enableStatusRequestExtension";
  private static final Duration NO_NEXT_UPDATE_REFRESH = Duration.ofHours(1);
  private static final Duration FIRST_RETRY = Duration.ofSeconds(10);
  private static final Duration MAX_RETRY = Duration.ofMinutes(10);
  private static final Duration MIN_REFRESH = Duration.ofSeconds(5);
  private static final int TIMEOUT_MILLIS = 10_000;

  private static final Map<CertKey, Entry> ENTRIES = new ConcurrentHashMap<>();
  private static final Object LOCK = new Object();
  private static ScheduledExecutorService scheduler;

  private OcspStapling() {}

  /**
   * Why {@code key} cannot be stapled for (no issuer certificate in its chain, no OCSP responder
   * named), or null when it can.
   */
  public static String whyNot(KeyMaterial key) {
    if (key.chain().size() < 2) {
      return "OCSP stapling needs the issuer's certificate after the server's in the chain";
    }
    if (OcspMessages.responderUrl(key.certificate()) == null) {
      return "the certificate names no OCSP responder (no authority information access with an"
          + " OCSP URL)";
    }
    return null;
  }

  /** A context that staples if {@code staple}, whatever the JVM-wide property says otherwise. */
  static SSLContext newContext(boolean staple) throws NoSuchAlgorithmException {
    if (!staple) {
      return SSLContext.getInstance("TLS");
    }
    synchronized (LOCK) {
      // Read by the JDK when a context's stapling starts: set before the first one does.
      System.setProperty("jdk.tls.stapling.responderURI", SCHEME + "://cache");
      System.setProperty("jdk.tls.stapling.responderOverride", "true");
      if (System.getProperty("jdk.tls.stapling.cacheLifetime") == null) {
        // The engine's own copy: short, so a refreshed response is what it staples soon after.
        System.setProperty("jdk.tls.stapling.cacheLifetime", "30");
      }
      String before = System.getProperty(ENABLE);
      System.setProperty(ENABLE, "true");
      try {
        return SSLContext.getInstance("TLS");
      } finally {
        if (before == null) {
          System.clearProperty(ENABLE);
        } else {
          System.setProperty(ENABLE, before);
        }
      }
    }
  }

  /**
   * Keeps responses for every certificate of {@code config} while {@code owner} (the server's
   * context, which its copies share) is reachable.
   */
  static void register(Object owner, TlsServerConfig config) {
    List<KeyMaterial> keys = new ArrayList<>();
    if (config.defaultKey() != null) {
      keys.add(config.defaultKey());
    }
    keys.addAll(config.keysByServerName().values());
    for (KeyMaterial key : keys) {
      if (whyNot(key) != null) {
        throw new IllegalArgumentException(whyNot(key));
      }
      X509Certificate leaf = key.certificate();
      X509Certificate issuer = key.chain().get(1);
      Entry entry =
          ENTRIES.computeIfAbsent(
              CertKey.of(leaf, issuer),
              k -> new Entry(k, leaf, issuer, OcspMessages.responderUrl(leaf)));
      if (entry.addOwner(owner)) {
        schedule(entry, Duration.ZERO);
      }
    }
  }

  /**
   * Where the fresh DER response for {@code key}'s certificate is read, on every handshake: the
   * supplier gives null while none is held (not yet fetched, or past its nextUpdate). {@code key}
   * must be stapleable ({@link #whyNot} null) and {@link #register registered} for responses to be
   * fetched.
   */
  public static java.util.function.Supplier<byte[]> responses(KeyMaterial key) {
    if (whyNot(key) != null) {
      throw new IllegalArgumentException(whyNot(key));
    }
    CertKey cert = CertKey.of(key.certificate(), key.chain().get(1));
    return () -> cached(cert);
  }

  /** The fresh response held for a certificate, DER, or null (for {@link OcspCacheUrls}). */
  static byte[] cached(CertKey cert) {
    Entry entry = ENTRIES.get(cert);
    Response response = entry == null ? null : entry.fresh(Instant.now());
    return response == null ? null : response.der();
  }

  private static void schedule(Entry entry, Duration delay) {
    ScheduledExecutorService executor;
    synchronized (LOCK) {
      if (scheduler == null) {
        scheduler =
            Executors.newSingleThreadScheduledExecutor(
                task -> {
                  Thread t = new Thread(task, "sluice-ocsp");
                  t.setDaemon(true);
                  return t;
                });
      }
      executor = scheduler;
    }
    executor.schedule(() -> refresh(entry), delay.toMillis(), TimeUnit.MILLISECONDS);
  }

  private static void refresh(Entry entry) {
    if (!entry.owned()) {
      ENTRIES.remove(entry.cert, entry);
      return;
    }
    ENTRIES.putIfAbsent(entry.cert, entry); // owned again after a removal raced a registration
    Instant now = Instant.now();
    try {
      Response response = OcspMessages.response(query(entry), entry.cert);
      entry.current = response;
      entry.retry = FIRST_RETRY;
      Duration delay = refreshDelay(response, now);
      LOG.log(
          response.status() == OcspMessages.CertStatus.GOOD
              ? System.Logger.Level.INFO
              : System.Logger.Level.WARNING,
          "OCSP: {0} is {1} says {2} (next update {3}); next request in {4}s",
          entry.subject(),
          response.status().name().toLowerCase(java.util.Locale.ROOT),
          entry.url,
          response.nextUpdate() == null ? "none given" : response.nextUpdate(),
          delay.toSeconds());
      schedule(entry, delay);
    } catch (IOException | RuntimeException e) {
      Response held = entry.fresh(now);
      Duration delay = entry.retry;
      entry.retry =
          delay.multipliedBy(2).compareTo(MAX_RETRY) > 0 ? MAX_RETRY : delay.multipliedBy(2);
      LOG.log(
          System.Logger.Level.WARNING,
          "OCSP: asking for the status of {0} from {1} failed ({2}); {3}; retrying in {4}s",
          entry.subject(),
          entry.url,
          e.toString(),
          held == null
              ? "stapling nothing for it meanwhile"
              : "stapling the response held until " + held.nextUpdate(),
          delay.toSeconds());
      schedule(entry, delay);
    }
  }

  /** Halfway to the next update (at least a few seconds on), or hourly when none is given. */
  static Duration refreshDelay(Response response, Instant now) {
    if (response.nextUpdate() == null) {
      return NO_NEXT_UPDATE_REFRESH;
    }
    Duration half = Duration.between(now, response.nextUpdate()).dividedBy(2);
    return half.compareTo(MIN_REFRESH) < 0 ? MIN_REFRESH : half;
  }

  private static byte[] query(Entry entry) throws IOException {
    HttpURLConnection http;
    try {
      http = (HttpURLConnection) URI.create(entry.url).toURL().openConnection();
    } catch (IllegalArgumentException | ClassCastException e) {
      throw new IOException("not an http URL: " + entry.url, e);
    }
    http.setConnectTimeout(TIMEOUT_MILLIS);
    http.setReadTimeout(TIMEOUT_MILLIS);
    http.setRequestMethod("POST");
    http.setDoOutput(true);
    http.setRequestProperty("Content-Type", "application/ocsp-request");
    http.setRequestProperty("Accept", "application/ocsp-response");
    try {
      byte[] request = OcspMessages.request(entry.leaf, entry.issuer);
      try (OutputStream out = http.getOutputStream()) {
        out.write(request);
      }
      if (http.getResponseCode() != HttpURLConnection.HTTP_OK) {
        throw new IOException("HTTP " + http.getResponseCode());
      }
      try (InputStream in = http.getInputStream()) {
        return in.readNBytes(1 << 20);
      }
    } finally {
      http.disconnect();
    }
  }

  /** One certificate's status: the response held, and the servers that staple it. */
  private static final class Entry {
    final CertKey cert;
    final X509Certificate leaf;
    final X509Certificate issuer;
    final String url;
    private final List<WeakReference<Object>> owners = new ArrayList<>();
    volatile Response current;
    volatile Duration retry = FIRST_RETRY;

    Entry(CertKey cert, X509Certificate leaf, X509Certificate issuer, String url) {
      this.cert = cert;
      this.leaf = leaf;
      this.issuer = issuer;
      this.url = url;
    }

    /** Adds an owner; true if it is the first one (no request is scheduled yet). */
    synchronized boolean addOwner(Object owner) {
      boolean first = owners.isEmpty();
      owners.add(new WeakReference<>(owner));
      return first;
    }

    synchronized boolean owned() {
      owners.removeIf(o -> o.get() == null);
      return !owners.isEmpty();
    }

    /** The response held, if it has not passed its nextUpdate (or its hour, lacking one). */
    Response fresh(Instant now) {
      Response r = current;
      if (r == null) {
        return null;
      }
      Instant until =
          r.nextUpdate() != null ? r.nextUpdate() : r.thisUpdate().plus(NO_NEXT_UPDATE_REFRESH);
      return now.isBefore(until) ? r : null;
    }

    String subject() {
      return leaf.getSubjectX500Principal().getName() + " " + cert;
    }
  }
}
