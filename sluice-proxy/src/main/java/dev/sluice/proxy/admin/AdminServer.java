package dev.sluice.proxy.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.metrics.ProxyMetrics;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The admin listener: plain HTTP on the JDK's server, each request on a virtual thread, never on an
 * event loop of proxied traffic. Serves {@code /} (the status page), {@code /metrics} (Prometheus),
 * {@code /metrics.json}, {@code /ready}, {@code /live} and {@code /dump}.
 */
public final class AdminServer implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AdminServer.class);

  /** The most pairs per loop {@code /dump} lists. */
  static final int MAX_DUMP_PAIRS = 10_000;

  /** Pairs per loop the status page lists (the dump lists more). */
  static final int PAIRS_ON_PAGE = 50;

  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final StatusReader status;
  private final ProxyMetrics metrics;
  private final ExpositionFormats formats = ExpositionFormats.init();

  private AdminServer(HttpServer server, StatusReader status, ProxyMetrics metrics) {
    this.server = server;
    this.status = status;
    this.metrics = metrics;
  }

  /**
   * Binds {@code address} and starts serving.
   *
   * @throws IOException when the address cannot be bound
   */
  public static AdminServer start(Endpoint.Tcp address, StatusReader status, ProxyMetrics metrics)
      throws IOException {
    HttpServer server;
    try {
      server = HttpServer.create((InetSocketAddress) address.socketAddress(), 64);
    } catch (IOException e) {
      throw new IOException(
          "cannot bind the admin listener on " + address + ": " + e.getMessage(), e);
    }
    AdminServer admin = new AdminServer(server, status, metrics);
    server.setExecutor(admin.executor);
    server.createContext("/", admin.get(admin::page));
    server.createContext("/metrics", admin.get(admin::prometheus));
    server.createContext("/metrics.json", admin.get(admin::json));
    server.createContext("/ready", admin.get(admin::ready));
    server.createContext("/live", admin.get(admin::live));
    server.createContext("/dump", admin.get(admin::dump));
    server.start();
    LOG.info("admin listener on http://{}/", admin.addressText());
    return admin;
  }

  /** Where it is bound (the real port when 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** host:port of the bound address, for URLs. */
  public String addressText() {
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().getHostAddress();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  /** Stops serving (requests under way get a second to finish). */
  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
  }

  // ---- the pages ----

  /** What a page answers: status, content type, body. */
  private record Reply(int status, String contentType, byte[] body) {
    static Reply text(int status, String text) {
      return new Reply(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }
  }

  @FunctionalInterface
  private interface Page {
    Reply answer(HttpExchange exchange) throws IOException;
  }

  private Reply page(HttpExchange exchange) {
    if (!exchange.getRequestURI().getPath().equals("/")) {
      return Reply.text(404, "no such page; try / /metrics /metrics.json /ready /live /dump\n");
    }
    return new Reply(
        200,
        "text/html; charset=utf-8",
        StatusPage.render(
                status.read(), RuntimeDump.take(status.runtime(), status.sampler(), PAIRS_ON_PAGE))
            .getBytes(StandardCharsets.UTF_8));
  }

  private Reply prometheus(HttpExchange exchange) throws IOException {
    if (!exact(exchange, "/metrics")) {
      return Reply.text(404, "no such page\n");
    }
    ExpositionFormatWriter writer =
        formats.findWriter(exchange.getRequestHeaders().getFirst("Accept"));
    if (!writer.isAvailable()) {
      writer = formats.getPrometheusTextFormatWriter();
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream(16_384);
    writer.write(body, metrics.registry().scrape());
    return new Reply(200, writer.getContentType(), body.toByteArray());
  }

  private Reply json(HttpExchange exchange) {
    return new Reply(
        200,
        "application/json",
        (Json.write(status.read()) + "\n").getBytes(StandardCharsets.UTF_8));
  }

  private Reply ready(HttpExchange exchange) {
    Status.Readiness r = status.readiness();
    return r.ready()
        ? Reply.text(200, "ready\n")
        : Reply.text(503, "not ready:\n" + String.join("\n", r.reasons()) + "\n");
  }

  private Reply live(HttpExchange exchange) {
    List<String> stuck = status.stuckLoops();
    return stuck.isEmpty()
        ? Reply.text(200, "live\n")
        : Reply.text(503, "not live:\n" + String.join("\n", stuck) + "\n");
  }

  private Reply dump(HttpExchange exchange) {
    int pairs = RuntimeDump.DEFAULT_PAIRS_PER_LOOP;
    String query = exchange.getRequestURI().getQuery();
    if (query != null) {
      for (String part : query.split("&")) {
        if (part.startsWith("pairs=")) {
          try {
            // Capped: every pair listed is formatted on its loop, between its reads.
            pairs = Math.clamp(Integer.parseInt(part.substring(6)), 0, MAX_DUMP_PAIRS);
          } catch (NumberFormatException e) {
            return Reply.text(400, "pairs= takes a whole number\n");
          }
        }
      }
    }
    return Reply.text(200, RuntimeDump.take(status.runtime(), status.sampler(), pairs));
  }

  private static boolean exact(HttpExchange exchange, String path) {
    return exchange.getRequestURI().getPath().equals(path);
  }

  /** Serves {@code page} to GET and HEAD; anything else is refused. */
  private HttpHandler get(Page page) {
    return exchange -> {
      try (exchange) {
        String method = exchange.getRequestMethod();
        Reply reply;
        if (!method.equals("GET") && !method.equals("HEAD")) {
          exchange.getResponseHeaders().set("Allow", "GET, HEAD");
          reply = Reply.text(405, "only GET and HEAD\n");
        } else {
          try {
            reply = page.answer(exchange);
          } catch (IOException | RuntimeException e) {
            LOG.warn("admin page {} failed", exchange.getRequestURI(), e);
            reply = Reply.text(500, "failed: " + e + "\n");
          }
        }
        exchange.getResponseHeaders().set("Content-Type", reply.contentType());
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        if (method.equals("HEAD")) {
          exchange.sendResponseHeaders(reply.status(), -1);
        } else {
          exchange.sendResponseHeaders(reply.status(), reply.body().length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(reply.body());
          }
        }
      }
    };
  }
}
