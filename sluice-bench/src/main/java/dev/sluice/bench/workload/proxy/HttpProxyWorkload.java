package dev.sluice.bench.workload.proxy;

import dev.sluice.bench.harness.ArmSummary;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.proxy.HttpArms;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the HTTP proxy workloads ({@code http}, {@code httpidle}) share: three arms (Sluice's HTTP
 * listener, HAProxy in {@code mode http}, nginx as a reverse proxy; {@link HttpArms}), one nginx
 * upstream answering every request with the same fixed body, and every arm's medians over HAProxy's
 * from the same run.
 */
abstract class HttpProxyWorkload implements Workload {
  static final String BODY = "body";

  /** Self-test of the integrity check: the upstream serves a body one byte off the expected one. */
  static final String CORRUPT_BODY = "corrupt-body";

  /** The {@link #CORRUPT_BODY} option, which both workloads have. */
  static final Option CORRUPT_OPTION =
      Option.flag(
          CORRUPT_BODY,
          "self-test of the integrity check: the upstream's body differs from the expected one in"
              + " its first byte");

  /** The load client, when the workload has a JVM one: many sockets, small buffers. */
  private static final List<String> CLIENT_MEMORY_FLAGS = JvmFlags.maxHeapAndDirectMiB(1024, 1024);

  /** The load client's program, or null for a workload whose load is an external program. */
  abstract ChildProgram client();

  /** The body every response must carry. */
  static String body(Params params) {
    return HttpBody.of(params.intCount(BODY));
  }

  /** The body the upstream serves: the expected one, or with {@link #CORRUPT_BODY} one byte off. */
  static String upstreamBody(Params params) {
    String body = body(params);
    if (!params.has(CORRUPT_BODY) || !params.flag(CORRUPT_BODY)) {
      return body;
    }
    return (body.charAt(0) == 'Z' ? "Y" : "Z") + body.substring(1);
  }

  /** Checks {@code --body}. */
  static void validateBody(Params params) {
    int size = params.intCount(BODY);
    if (size < 1 || size > 4096) {
      throw new IllegalArgumentException("--body must be 1 .. 4096 bytes");
    }
  }

  @Override
  public List<String> memoryFlags(Params params) {
    return CLIENT_MEMORY_FLAGS;
  }

  /** Sluice (once its proxy is built), HAProxy and nginx. */
  @Override
  public Set<Impl> arms(Params params) {
    return HttpArms.available();
  }

  @Override
  public Map<Impl, Map<String, Object>> derived(Map<Impl, ArmSummary> arms) {
    return ProxyWorkload.vsHaproxy(arms);
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    ChildProgram client = client();
    if (role == Role.MEASURED || client == null) {
      throw new IllegalStateException(
          "an HTTP workload's measured side is the proxy process itself, not a harness child");
    }
    return client;
  }

  @Override
  public Map<String, String> conditions(Params params) {
    Map<String, String> conditions = new LinkedHashMap<>();
    conditions.put(
        "measured",
        "the proxy process (nginx: its master and workers); the upstream and the load are other"
            + " processes");
    conditions.put("transport", "plain TCP, HTTP/1.1 keep-alive on both sides of the proxy");
    conditions.putAll(HttpArms.conditions());
    return conditions;
  }
}
