package dev.sluice.bench.harness;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Small pieces most workloads' {@link Workload#run} share. */
public final class Steps {
  private Steps() {}

  /** The numeric fields of {@code done} that {@code fields} name (missing ones are skipped). */
  public static Map<String, Double> numbers(Message done, List<Field> fields) {
    Map<String, Double> values = new LinkedHashMap<>();
    for (Field field : fields) {
      String raw = done.fields().get(field.name());
      if (raw != null) {
        values.put(field.name(), Double.parseDouble(raw));
      }
    }
    return values;
  }

  /** Whether {@code done} says integrity=OK. */
  public static boolean integrityOk(Message done) {
    return "OK".equals(done.fields().get("integrity"));
  }

  /** The failure detail {@code done} carries. */
  public static String integrityDetail(Message done) {
    return done.fields().getOrDefault("integrityDetail", "no integrity verdict");
  }

  /**
   * The common run shape: start the peer, start the measured side pointed at it, wait for READY,
   * say GO, and turn its DONE message into the result.
   */
  public static RunResult readyGoDone(RunContext context, Impl impl, List<Field> fields)
      throws Exception {
    Duration timeout = context.stepTimeout();
    try (ChildProcess peer = context.startPeer();
        ChildProcess measured =
            context.startMeasured(impl, peer.await("LISTENING", timeout).field("port"))) {
      measured.await("READY", timeout);
      measured.send("GO");
      return result(measured.await("DONE", timeout), fields, Map.of());
    }
  }

  /** A run result from the measured side's DONE message. */
  public static RunResult result(Message done, List<Field> fields, Map<String, Double> extra) {
    Map<String, Double> values = numbers(done, fields);
    values.putAll(extra);
    return RunResult.of(values, integrityOk(done), integrityDetail(done));
  }
}
