package dev.sluice.proxy.health;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.net.Connection;
import dev.sluice.net.ConnectionHandler;
import dev.sluice.net.EventLoop;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.SocketOptions;
import dev.sluice.proxy.cluster.Cluster;
import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.proxyprotocol.HeaderFirst;
import dev.sluice.proxy.proxyprotocol.OutboundHeader;
import dev.sluice.proxy.proxyprotocol.ProxyHeader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The active health check of one cluster: every upstream is checked on its own schedule (the
 * configured interval with up to a tenth of jitter, the first check at a random point within the
 * first interval, so that checks are spread in time rather than sent all at once), on the proxy's
 * event loops, with non-blocking connects. A check is a TCP connect, a TLS handshake, or bytes sent
 * and a reply expected. The verdicts go to each upstream's {@link dev.sluice.proxy.cluster.Health}.
 */
public final class HealthChecker implements AutoCloseable {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(HealthChecker.class);

  private final Cluster cluster;
  private final ClusterConfig.HealthCheck check;
  private final EventLoopGroup group;
  private final Set<UpstreamTarget> scheduled = ConcurrentHashMap.newKeySet();
  private volatile boolean stopped;

  public HealthChecker(Cluster cluster, EventLoopGroup group) {
    this.cluster = cluster;
    this.check = cluster.config().healthCheck();
    this.group = group;
  }

  /** Starts checking every upstream the cluster has now; call again after its set changed. */
  public void start() {
    List<UpstreamTarget> targets = cluster.upstreams();
    List<EventLoop> loops = group.loops();
    for (int i = 0; i < targets.size(); i++) {
      UpstreamTarget target = targets.get(i);
      if (scheduled.add(target)) {
        EventLoop loop = loops.get(Math.floorMod(target.name().hashCode(), loops.size()));
        long first = ThreadLocalRandom.current().nextLong(check.interval().toNanos());
        loop.submit(() -> schedule(target, loop, Duration.ofNanos(first)), () -> {});
      }
    }
  }

  private void schedule(UpstreamTarget target, EventLoop loop, Duration delay) {
    if (stopped || target.draining()) {
      scheduled.remove(target);
      return;
    }
    loop.schedule(delay, () -> run(target, loop));
  }

  private void run(UpstreamTarget target, EventLoop loop) {
    if (stopped || target.draining()) {
      scheduled.remove(target);
      return;
    }
    probe(target, loop)
        .whenComplete(
            (problem, error) -> {
              long now = System.nanoTime();
              String why = error != null ? String.valueOf(error.getMessage()) : problem;
              if (why == null) {
                if (target.health().checkPassed(now)) {
                  LOG.info(
                      "upstream {} of cluster {} is up ({} checks passed)",
                      target.name(),
                      cluster.name(),
                      check.rise());
                }
              } else if (target.health().checkFailed(now, why)) {
                LOG.warn(
                    "upstream {} of cluster {} is down ({} checks failed; last: {})",
                    target.name(),
                    cluster.name(),
                    check.fall(),
                    why);
              }
              long interval = check.interval().toNanos();
              long jitter = ThreadLocalRandom.current().nextLong(interval / 10 + 1);
              schedule(target, loop, Duration.ofNanos(interval - interval / 20 + jitter));
            });
  }

  /** One check: completes with null when it passed, or with what went wrong. On the loop. */
  private CompletableFuture<String> probe(UpstreamTarget target, EventLoop loop) {
    CompletableFuture<String> result = new CompletableFuture<>();
    SocketOptions options = SocketOptions.defaults().withConnectTimeout(check.timeout());
    Probe handler = new Probe(result);
    EventLoop.Timeout deadline =
        loop.schedule(
            check.timeout(),
            () -> {
              if (result.complete("no answer within " + check.timeout().toMillis() + " ms")) {
                handler.close();
              }
            });
    result.whenComplete((r, e) -> deadline.cancel());
    // An upstream that expects PROXY protocol headers refuses a connection without one: the check
    // sends the header of the checker's own connection (v2 LOCAL, v1 UNKNOWN), as HAProxy's
    // check-send-proxy does, and before the TLS handshake of a tls check.
    ProxyHeader.Version proxyProtocol = cluster.config().proxyProtocol();
    CompletableFuture<?> connect =
        HeaderFirst.connect(
            loop,
            target.address(),
            options,
            check.type() == ClusterConfig.CheckType.TLS ? cluster.tlsClient() : null,
            target.tlsServerName(),
            proxyProtocol == null ? null : OutboundHeader.forHealthCheck(proxyProtocol),
            handler);
    connect.whenComplete(
        (c, error) -> {
          if (error != null) {
            result.complete(String.valueOf(error.getMessage()));
          }
        });
    return result;
  }

  /** The check's connection: passes at once (tcp, tls) or on the expected reply (send). */
  private final class Probe implements ConnectionHandler {
    private final CompletableFuture<String> result;
    private final StringBuilder reply = new StringBuilder();
    private Connection connection;

    Probe(CompletableFuture<String> result) {
      this.result = result;
    }

    @Override
    public void onActive(Connection c) {
      connection = c;
      if (result.isDone()) {
        c.close();
      } else if (check.type() == ClusterConfig.CheckType.SEND) {
        c.write(ByteBuffer.wrap(check.send().getBytes(StandardCharsets.UTF_8)));
      } else {
        result.complete(null);
        c.close();
      }
    }

    @Override
    public void onRead(Connection c, BorrowedBytes bytes) {
      reply.append(StandardCharsets.UTF_8.decode(bytes.buffer()));
      String expect = check.expect();
      if (reply.length() >= expect.length()) {
        result.complete(
            reply.toString().startsWith(expect)
                ? null
                : "expected '"
                    + expect
                    + "', got '"
                    + reply.substring(0, Math.min(reply.length(), 64))
                    + "'");
        c.close();
      }
    }

    @Override
    public void onEndOfInput(Connection c) {
      result.complete("closed after '" + reply + "' without the expected '" + check.expect() + "'");
      c.close();
    }

    @Override
    public void onClose(Connection c, dev.sluice.net.CloseReason reason) {
      result.complete("closed: " + reason.label());
    }

    void close() {
      if (connection != null) {
        connection.close();
      }
    }
  }

  @Override
  public void close() {
    stopped = true;
  }
}
