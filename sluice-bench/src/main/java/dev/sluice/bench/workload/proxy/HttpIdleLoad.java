package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Params;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The {@code httpidle} load client: warm-up rounds (connections that send one GET and close), then
 * N connections that each send one GET, check the response and park; when told, one more GET on
 * every parked connection, each of which must still be open. Every response is checked ({@link
 * HttpConnection#exchange}).
 */
final class HttpIdleLoad implements ChildProgram {
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicReference<String> firstFailure = new AtomicReference<>();

  @Override
  public void run(ChildControl control) throws Exception {
    Params params = control.params();
    control.await("GO");
    InetSocketAddress proxy =
        new InetSocketAddress("127.0.0.1", params.intCount(ProxyWorkload.PROXY_PORT));
    String body = HttpProxyWorkload.body(params);
    int parallel = params.intCount(HttpIdleWorkload.PARALLEL);
    int warmup = params.intCount(HttpIdleWorkload.WARMUP);
    HttpConnection[] parked = new HttpConnection[params.intCount(HttpIdleWorkload.CONNECTIONS)];
    try {
      requestEach(proxy, body, warmup, parallel, null);
      control.send("WARM");
      while (true) {
        String phase = control.await("GO").field("phase");
        if (phase.equals("warm")) {
          requestEach(proxy, body, warmup, parallel, null);
          control.send("WARM");
        } else if (phase.equals("park")) {
          long start = System.nanoTime();
          requestEach(proxy, body, parked.length, parallel, parked);
          long nanos = System.nanoTime() - start;
          long open = Arrays.stream(parked).filter(Objects::nonNull).count();
          control.send("PARKED", report(Map.of("connections", open, "nanos", nanos)));
          break;
        } else {
          throw new IllegalStateException("unknown phase " + phase);
        }
      }
      control.await("GO");
      failed.set(0);
      firstFailure.set(null);
      LoadSupport.parallel(
          parked.length,
          parallel,
          true,
          i -> {
            if (parked[i] != null) {
              check(parked[i], body, "parked connection " + i);
            }
          });
      control.send("VERIFIED", report(Map.of("connections", parked.length)));
      control.await("EXIT");
    } finally {
      for (HttpConnection c : parked) {
        if (c != null) {
          c.close();
        }
      }
    }
  }

  /**
   * Opens {@code count} connections, {@code parallel} at a time, each sending one GET whose
   * response is checked; keeps them in {@code keep} (slot = index), or closes them when it is null.
   */
  private void requestEach(
      InetSocketAddress proxy, String body, int count, int parallel, HttpConnection[] keep)
      throws Exception {
    LoadSupport.parallel(
        count,
        parallel,
        true,
        i -> {
          HttpConnection connection = HttpConnection.open(proxy);
          boolean ok = false;
          try {
            ok = check(connection, body, "connection " + i);
          } finally {
            if (ok && keep != null) {
              keep[i] = connection;
            } else {
              connection.close();
            }
          }
        });
  }

  /**
   * One request on {@code connection}; a wrong response, or a connection that failed or closed
   * before the whole response, is counted as a failure.
   *
   * @return whether the response was right
   */
  private boolean check(HttpConnection connection, String body, String which) {
    String failure;
    try {
      failure = connection.exchange(body);
    } catch (IOException e) {
      failure = "the connection failed: " + e;
    }
    if (failure != null) {
      failed.incrementAndGet();
      firstFailure.compareAndSet(null, which + ": " + failure);
      return false;
    }
    return true;
  }

  private Map<String, Object> report(Map<String, ?> fields) {
    Map<String, Object> all = new LinkedHashMap<>(fields);
    int n = failed.get();
    all.put("integrity", n == 0 ? "OK" : "FAIL");
    all.put("integrityDetail", n == 0 ? "" : firstFailure.get() + " (" + n + " responses)");
    return all;
  }
}
