package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ArmSummary;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.proxy.EchoUpstream;
import dev.sluice.bench.proxy.ProxyArms;
import dev.sluice.bench.tls.KeyType;
import dev.sluice.bench.tls.TlsVersion;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the proxy workloads share: three arms ({@link ProxyArms}), three processes per run (the
 * proxy, the load client, the echo upstream or a workload's own, {@link #upstream()}; {@link
 * ProxyRun}), the options every one has ({@code --tls}, {@code --tls-version}, {@code --engine},
 * {@code --read-buffer}) and the model each arm is predicted to follow, stated beside its figures,
 * with every arm's ratios to HAProxy's.
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

  /** Sluice's {@code splice}; {@link #ENGINE_UNSET} leaves the key out (the proxy's default). */
  static final String SPLICE = "splice";

  static final List<String> SPLICE_MODES = List.of("auto", "off");

  /** Sluice's {@code tls.engine}; {@link #ENGINE_UNSET} leaves the key out of its configuration. */
  static final String ENGINE = "engine";

  static final String ENGINE_UNSET = "unset";
  static final List<String> ENGINES = List.of("auto", "openssl", "jdk");

  /** The certificate's key ({@link KeyType}); workloads without the option use EC P-256. */
  static final String CERT = "cert";

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

  /** The upstream's program: the echo upstream, unless the workload's upstream differs. */
  ChildProgram upstream() {
    return new EchoUpstream();
  }

  /** Whether every run terminates TLS (then there is no {@code --tls} flag). */
  boolean tlsOnly() {
    return false;
  }

  @Override
  public final List<Option> options() {
    List<Option> options = new ArrayList<>(ownOptions());
    if (!tlsOnly()) {
      options.add(Option.flag(TLS, "the proxy terminates TLS (the client speaks TLS to it)"));
    }
    options.add(new Option(TLS_VERSION, "1.3", "with TLS: TLS version, 1.3 or 1.2"));
    options.add(
        new Option(
            ENGINE,
            ENGINE_UNSET,
            "with TLS: the Sluice arm's tls.engine, auto, openssl or jdk; unset writes no such"
                + " key (the proxy's default)"));
    options.add(
        new Option(
            READ_BUFFER,
            "64k",
            "Sluice's buffers.readBufferSize (Netty and HAProxy keep their defaults)"));
    options.add(
        new Option(
            SPLICE,
            ENGINE_UNSET,
            "the Sluice arm's splice, auto or off; unset writes no such key (the proxy's default)"));
    return List.copyOf(options);
  }

  /** Checks the common options; the workloads' {@code fields} call it. */
  static void validateCommon(Params params) {
    boolean tls = tls(params);
    TlsVersion.parse(params.string(TLS_VERSION));
    keyType(params);
    String engine = params.has(ENGINE) ? params.string(ENGINE) : ENGINE_UNSET;
    if (!engine.equals(ENGINE_UNSET) && !ENGINES.contains(engine)) {
      throw new IllegalArgumentException(
          "--engine expects " + String.join(", ", ENGINES) + ", got '" + engine + "'");
    }
    if (!engine.equals(ENGINE_UNSET) && !tls) {
      throw new IllegalArgumentException(
          "--engine sets the Sluice arm's tls.engine: it needs --tls");
    }
    String splice = params.has(SPLICE) ? params.string(SPLICE) : ENGINE_UNSET;
    if (!splice.equals(ENGINE_UNSET) && !SPLICE_MODES.contains(splice)) {
      throw new IllegalArgumentException(
          "--splice expects " + String.join(", ", SPLICE_MODES) + ", got '" + splice + "'");
    }
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

  /** Whether the run terminates TLS: always, for a workload without the {@code --tls} flag. */
  static boolean tls(Params params) {
    return !params.has(TLS) || params.flag(TLS);
  }

  /** The Sluice arm's {@code splice}, or null to write none. */
  static String splice(Params params) {
    String splice = params.has(SPLICE) ? params.string(SPLICE) : ENGINE_UNSET;
    return splice.equals(ENGINE_UNSET) ? null : splice;
  }

  /** The Sluice arm's {@code tls.engine}, or null to write none. */
  static String tlsEngine(Params params) {
    String engine = params.has(ENGINE) ? params.string(ENGINE) : ENGINE_UNSET;
    return engine.equals(ENGINE_UNSET) ? null : engine;
  }

  /** The certificate's key: {@code --cert}, or EC P-256 for a workload without it. */
  static KeyType keyType(Params params) {
    return params.has(CERT) ? KeyType.parse(CERT, params.string(CERT)) : KeyType.ECDSA_P256;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    return PEER_MEMORY_FLAGS;
  }

  /** Sluice (once its proxy is built), Netty, with TLS Netty on OpenSSL, and HAProxy. */
  @Override
  public Set<Impl> arms(Params params) {
    return ProxyArms.available(tls(params));
  }

  /**
   * Every other arm's medians over HAProxy's ({@code vsHaproxy}), from the same run, when HAProxy
   * ran: the baseline the TLS goals are stated against.
   */
  @Override
  public Map<Impl, Map<String, Object>> derived(Map<Impl, ArmSummary> arms) {
    return vsHaproxy(arms);
  }

  /** Every other arm's medians over HAProxy's ({@code vsHaproxy}), when HAProxy ran. */
  static Map<Impl, Map<String, Object>> vsHaproxy(Map<Impl, ArmSummary> arms) {
    ArmSummary haproxy = arms.get(Impl.HAPROXY);
    if (haproxy == null) {
      return Map.of();
    }
    Map<Impl, Map<String, Object>> derived = new EnumMap<>(Impl.class);
    arms.forEach(
        (impl, arm) -> {
          if (impl == Impl.HAPROXY) {
            return;
          }
          Map<String, Object> ratios = new LinkedHashMap<>();
          arm.stats()
              .forEach(
                  (field, stats) -> {
                    double base = haproxy.median(field);
                    if (!Double.isNaN(base) && base != 0) {
                      ratios.put(field, Math.round(stats.median() / base * 1000) / 1000.0);
                    }
                  });
          if (!ratios.isEmpty()) {
            derived.put(impl, Map.of("vsHaproxy", ratios));
          }
        });
    return derived;
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    if (role == Role.MEASURED) {
      throw new IllegalStateException(
          "a proxy workload's measured side is the proxy process itself, not a harness child");
    }
    return control ->
        (control.params().string(SIDE).equals(UPSTREAM) ? upstream() : client()).run(control);
  }

  /** What the report says about the cipher suite; the handshake workload's client differs. */
  String cipherSuiteCondition(Params params, TlsVersion version) {
    return version.cipherSuite() + " (the only suite the load client enables)";
  }

  @Override
  public Map<String, String> conditions(Params params) {
    Map<String, String> conditions = new LinkedHashMap<>();
    conditions.put("measured", "the proxy process; load client and echo upstream are plain JDK");
    if (tls(params)) {
      TlsVersion version = TlsVersion.parse(params.string(TLS_VERSION));
      conditions.put("tlsProtocol", version.protocol());
      conditions.put("cipherSuite", cipherSuiteCondition(params, version));
      conditions.put(
          "certificate",
          "self-signed "
              + keyType(params).description()
              + ", from keytool, the same for every arm");
      String engine = tlsEngine(params);
      conditions.put(
          "sluiceTlsEngine",
          engine == null
              ? "no tls.engine in the Sluice arm's configuration (the proxy's default)"
              : "tls.engine: " + engine + " in the Sluice arm's configuration");
    } else {
      conditions.put("transport", "plain TCP");
    }
    conditions.putAll(ProxyArms.conditions(tls(params)));
    return conditions;
  }
}
