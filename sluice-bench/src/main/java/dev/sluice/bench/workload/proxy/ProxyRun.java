package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildProcess;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.proxy.EchoUpstream;
import dev.sluice.bench.proxy.PemFiles;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.proxy.ProxyProcess;
import dev.sluice.bench.proxy.ProxySetup;
import dev.sluice.bench.tls.BenchCertificate;
import dev.sluice.bench.tls.KeyType;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;

/**
 * One run's three processes, started in order (upstream, proxy, load client) and stopped in the
 * reverse order: the client first, so its connections close before the proxy is stopped.
 */
final class ProxyRun implements AutoCloseable, MemoryPhases.Client {
  final ChildProcess upstream;
  final ProxyProcess proxy;
  final ChildProcess client;
  private final Duration timeout;

  private ProxyRun(
      ChildProcess upstream, ProxyProcess proxy, ChildProcess client, Duration timeout) {
    this.upstream = upstream;
    this.proxy = proxy;
    this.client = client;
    this.timeout = timeout;
  }

  /**
   * Starts the three processes of a run of arm {@code impl} at once, on ports the harness picked,
   * and returns when the upstream listens and the proxy accepts; the client then starts its load
   * (it waits for the first GO).
   */
  static ProxyRun start(RunContext context, Impl impl, int peakConnections) throws Exception {
    return start(context, impl, peakConnections, Params.of(Map.of()));
  }

  /** As {@link #start(RunContext, Impl, int)}, with {@code upstreamParams} for the upstream. */
  static ProxyRun start(RunContext context, Impl impl, int peakConnections, Params upstreamParams)
      throws Exception {
    Params params = context.params();
    Duration timeout = context.stepTimeout();
    boolean tls = ProxyWorkload.tls(params);
    KeyType keyType = ProxyWorkload.keyType(params);
    InetSocketAddress upstreamAddress = ProxySetup.freeLoopbackAddress();
    ProxySetup setup =
        new ProxySetup(
            ProxySetup.freeLoopbackAddress(),
            upstreamAddress,
            tls ? PemFiles.shared(keyType) : null,
            peakConnections + ProxySetup.MAXCONN_MARGIN,
            params.bytes(ProxyWorkload.READ_BUFFER),
            ProxyWorkload.tlsEngine(params),
            ProxyWorkload.splice(params));
    Params clientParams =
        side(ProxyWorkload.CLIENT).with(ProxyWorkload.PROXY_PORT, setup.listen().getPort());
    if (tls) {
      for (Map.Entry<String, String> e :
          BenchCertificate.shared(keyType).params().asMap().entrySet()) {
        clientParams = clientParams.with(e.getKey(), e.getValue());
      }
    }
    ChildProcess upstream = null;
    ProxyProcess proxy = null;
    ChildProcess client = null;
    try {
      upstream =
          context.startPeer(
              ProxyWorkload.UPSTREAM,
              merged(
                  side(ProxyWorkload.UPSTREAM).with(EchoUpstream.PORT, upstreamAddress.getPort()),
                  upstreamParams));
      proxy = ProxyArms.start(impl, setup);
      client = context.startPeer(ProxyWorkload.CLIENT, clientParams);
      upstream.await("LISTENING", timeout);
      proxy.awaitReady(timeout);
      ProxyRun run = new ProxyRun(upstream, proxy, client, timeout);
      run.go("start");
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

  private static Params merged(Params params, Params more) {
    for (Map.Entry<String, String> e : more.asMap().entrySet()) {
      params = params.with(e.getKey(), e.getValue());
    }
    return params;
  }

  private static Params side(String side) {
    return Params.of(Map.of(ProxyWorkload.SIDE, side));
  }

  /** Waits for the client's next line, which must be {@code word}; checks the proxy still runs. */
  @Override
  public Message awaitClient(String word) throws InterruptedException {
    Message message = client.await(word, timeout);
    proxy.checkAlive();
    return message;
  }

  /** Tells the client to go on with {@code phase}. */
  @Override
  public void go(String phase) throws java.io.IOException {
    client.send(Message.of("GO", "phase", phase));
  }

  /** Sends {@code message} to the upstream and waits for its reply {@code word}. */
  Message askUpstream(Message message, String word)
      throws java.io.IOException, InterruptedException {
    upstream.send(message);
    Message reply = upstream.await(word, timeout);
    proxy.checkAlive();
    return reply;
  }

  @Override
  public void close() {
    try {
      client.close();
    } finally {
      try {
        proxy.close();
      } finally {
        upstream.close();
      }
    }
  }
}
