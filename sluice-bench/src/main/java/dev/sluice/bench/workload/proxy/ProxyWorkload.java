package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.proxy.EchoUpstream;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.tls.TlsVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the proxy workloads share: three arms ({@link ProxyArms}), three processes per run (the
 * proxy, the load client, the echo upstream; {@link ProxyRun}), the options every one has ({@code
 * --tls}, {@code --tls-version}, {@code --read-buffer}) and the model each arm is predicted to
 * follow, stated beside its figures.
 */
abstract class ProxyWorkload implements Workload {
  /** The param telling the two peer JVMs apart: {@link #UPSTREAM} or {@link #CLIENT}. */
  static final String SIDE = "side";

  static final String UPSTREAM = "upstream";
  static final String CLIENT = "client";

  /** The param telling the load client the proxy's port. */
  static final String PROXY_PORT = "proxyPort";

  static final String TLS = "tls";
  static final String TLS_VERSION = "tls-version";
  static final String READ_BUFFER = "read-buffer";

  /** The load client and the upstream: every socket and a small buffer per connection. */
  private static final List<String> PEER_MEMORY_FLAGS = JvmFlags.maxHeapAndDirectMiB(1024, 1024);

  /** This workload's own options, before the common ones. */
  abstract List<Option> ownOptions();

  /** The load client's program. */
  abstract ChildProgram client();

  /**
   * Client connections the proxy holds at most at once in a run (HAProxy's maxconn less margin).
   */
  abstract int peakConnections(Params params);

  /** What arm {@code impl} is predicted to show, stated beside its figures. */
  abstract String model(Impl impl, Params params);

  @Override
  public final List<Option> options() {
    List<Option> options = new ArrayList<>(ownOptions());
    options.add(Option.flag(TLS, "the proxy terminates TLS (the client speaks TLS to it)"));
    options.add(new Option(TLS_VERSION, "1.3", "with --tls: TLS version, 1.3 or 1.2"));
    options.add(
        new Option(
            READ_BUFFER,
            "64k",
            "Sluice's buffers.readBufferSize (Netty and HAProxy keep their defaults)"));
    return List.copyOf(options);
  }

  /** Checks the common options; the workloads' {@code fields} call it. */
  static void validateCommon(Params params) {
    params.flag(TLS);
    TlsVersion.parse(params.string(TLS_VERSION));
    if (params.intBytes(READ_BUFFER) < 1024) {
      throw new IllegalArgumentException("--read-buffer must be at least 1k");
    }
  }

  /** Checks that {@code value} of {@code option} is at least {@code min}. */
  static int atLeast(Params params, String option, int min) {
    int value = params.intCount(option);
    if (value < min) {
      throw new IllegalArgumentException("--" + option + " must be at least " + min);
    }
    return value;
  }

  /** Whether the run terminates TLS. */
  static boolean tls(Params params) {
    return params.flag(TLS);
  }

  @Override
  public List<String> memoryFlags(Params params) {
    return PEER_MEMORY_FLAGS;
  }

  /** Sluice (once its proxy is built), Netty and HAProxy. */
  @Override
  public Set<Impl> arms(Params params) {
    return ProxyArms.available();
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    if (role == Role.MEASURED) {
      throw new IllegalStateException(
          "a proxy workload's measured side is the proxy process itself, not a harness child");
    }
    return control ->
        (control.params().string(SIDE).equals(UPSTREAM) ? new EchoUpstream() : client())
            .run(control);
  }

  @Override
  public Map<String, String> conditions(Params params) {
    Map<String, String> conditions = new LinkedHashMap<>();
    conditions.put("measured", "the proxy process; load client and echo upstream are plain JDK");
    if (tls(params)) {
      TlsVersion version = TlsVersion.parse(params.string(TLS_VERSION));
      conditions.put("tlsProtocol", version.protocol());
      conditions.put(
          "cipherSuite", version.cipherSuite() + " (the only suite the load client enables)");
    } else {
      conditions.put("transport", "plain TCP");
    }
    conditions.putAll(ProxyArms.conditions(tls(params)));
    return conditions;
  }
}
