package dev.sluice.proxy.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Asks an admin listener over real HTTP. */
public final class AdminClient {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;

  public AdminClient(InetSocketAddress admin) {
    this.base = "http://" + admin.getAddress().getHostAddress() + ":" + admin.getPort();
  }

  /** The base URL, {@code http://host:port}. */
  public String base() {
    return base;
  }

  /** A GET of {@code path}. */
  public HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), null);
  }

  /** A request of {@code path} with {@code method} and no body, and an Accept header if given. */
  public HttpResponse<String> send(HttpRequest.Builder request, String accept)
      throws IOException, InterruptedException {
    request.timeout(Duration.ofSeconds(20));
    if (accept != null) {
      request.header("Accept", accept);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** {@code method} of {@code path} with no body. */
  public HttpResponse<String> method(String method, String path)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(base + path))
            .method(method, HttpRequest.BodyPublishers.noBody()),
        null);
  }

  /** /metrics, parsed: each sample's value by its series, {@code name{a="x",b="y"}}. */
  public Map<String, Double> scrape() throws IOException, InterruptedException {
    HttpResponse<String> r = get("/metrics");
    if (r.statusCode() != 200) {
      throw new AssertionError("/metrics answered " + r.statusCode() + ": " + r.body());
    }
    return parse(r.body());
  }

  /** Parses Prometheus text: comment lines skipped, each series' labels sorted by name. */
  public static Map<String, Double> parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      String series = line.substring(0, space);
      String value = line.substring(space + 1);
      double v =
          switch (value) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(value);
          };
      if (samples.put(normalized(series), v) != null) {
        throw new AssertionError("series printed twice: " + series);
      }
    }
    return samples;
  }

  /** {@code name{b="2",a="1"}} as {@code name{a="1",b="2"}}: label order is the printer's. */
  private static String normalized(String series) {
    int brace = series.indexOf('{');
    if (brace < 0) {
      return series;
    }
    java.util.regex.Matcher label =
        java.util.regex.Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"")
            .matcher(series.substring(brace));
    java.util.List<String> pairs = new java.util.ArrayList<>();
    while (label.find()) {
      pairs.add(label.group(1));
      pairs.add(label.group(2));
    }
    return series(series.substring(0, brace), pairs.toArray(String[]::new));
  }

  /** The key of a series: {@code name} with labels given as name, value pairs, sorted by name. */
  public static String series(String name, String... labels) {
    if (labels.length == 0) {
      return name;
    }
    java.util.TreeMap<String, String> sorted = new java.util.TreeMap<>();
    for (int i = 0; i < labels.length; i += 2) {
      sorted.put(labels[i], labels[i + 1]);
    }
    StringBuilder b = new StringBuilder(name).append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : sorted.entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      b.append(e.getKey()).append("=\"").append(e.getValue()).append('"');
    }
    return b.append('}').toString();
  }
}
