package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildProcess;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.proxy.HttpArms;
import dev.sluice.bench.proxy.HttpSetup;
import dev.sluice.bench.proxy.ProxyProcess;
import dev.sluice.bench.proxy.ProxySetup;
import java.io.IOException;
import java.time.Duration;

/**
 * One run of an HTTP workload: the nginx upstream, the proxy of one arm and, for a workload with a
 * JVM load client, that client; started at once on ports the harness picked, ready when the
 * upstream and the proxy accept connections, and stopped in reverse order (the client first, so its
 * connections close before the proxy is stopped).
 */
final class HttpRun implements AutoCloseable, MemoryPhases.Client {
  final HttpSetup setup;
  final ProxyProcess upstream;
  final ProxyProcess proxy;
  private final ChildProcess client;
  private final Duration timeout;

  private HttpRun(
      HttpSetup setup,
      ProxyProcess upstream,
      ProxyProcess proxy,
      ChildProcess client,
      Duration timeout) {
    this.setup = setup;
    this.upstream = upstream;
    this.proxy = proxy;
    this.client = client;
    this.timeout = timeout;
  }

  /**
   * Starts the upstream (answering with {@code body}) and arm {@code impl}'s proxy for {@code
   * maxConnections} client connections, and with {@code clientParams} not null the load client
   * (told the proxy's port as {@link ProxyWorkload#PROXY_PORT}); returns when the upstream and the
   * proxy accept, having told the client to start.
   */
  static HttpRun start(
      RunContext context, Impl impl, int maxConnections, String body, Params clientParams)
      throws Exception {
    Duration timeout = context.stepTimeout();
    HttpSetup setup =
        new HttpSetup(
            ProxySetup.freeLoopbackAddress(), ProxySetup.freeLoopbackAddress(), maxConnections);
    ProxyProcess upstream = null;
    ProxyProcess proxy = null;
    ChildProcess client = null;
    try {
      upstream = HttpArms.startUpstream(setup, body);
      proxy = HttpArms.start(impl, setup);
      if (clientParams != null) {
        client =
            context.startPeer(
                ProxyWorkload.CLIENT,
                clientParams.with(ProxyWorkload.PROXY_PORT, setup.listen().getPort()));
      }
      upstream.awaitReady(timeout);
      proxy.awaitReady(timeout);
      HttpRun run = new HttpRun(setup, upstream, proxy, client, timeout);
      if (client != null) {
        run.go("start");
      }
      return run;
    } catch (Exception | Error e) {
      for (AutoCloseable started : new AutoCloseable[] {client, proxy, upstream}) {
        if (started != null) {
          started.close();
        }
      }
      throw e;
    }
  }

  /** The URL the load goes to: the proxy's listener. */
  String url() {
    return "http://"
        + setup.listen().getAddress().getHostAddress()
        + ":"
        + setup.listen().getPort()
        + "/";
  }

  /** Fails unless the proxy and the upstream still run. */
  void checkAlive() {
    proxy.checkAlive();
    upstream.checkAlive();
  }

  /** Waits for the client's next line, which must be {@code word}; checks the proxy still runs. */
  @Override
  public Message awaitClient(String word) throws InterruptedException {
    Message message = client.await(word, timeout);
    checkAlive();
    return message;
  }

  /** Tells the client to go on with {@code phase}. */
  @Override
  public void go(String phase) throws IOException {
    client.send(Message.of("GO", "phase", phase));
  }

  @Override
  public void close() {
    try {
      if (client != null) {
        client.close();
      }
    } finally {
      try {
        proxy.close();
      } finally {
        upstream.close();
      }
    }
  }
}
