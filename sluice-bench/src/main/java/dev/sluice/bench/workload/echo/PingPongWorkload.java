package dev.sluice.bench.workload.echo;

import dev.sluice.bench.child.EchoPeer;
import dev.sluice.bench.child.Integrity;
import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.child.PeerAddress;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Steps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.harness.Workload;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Small-message latency: N connections at once, each doing R round trips of a 512 B message against
 * an echo peer; every echoed byte verified. Reports wall time per round trip over all connections
 * (the inverse of the aggregate round-trip rate).
 */
public final class PingPongWorkload implements Workload {
  static final String CONNECTIONS = "connections";
  static final String ROUND_TRIPS = "round-trips";
  static final String SIZE = "size";
  static final String WARMUP_ROUND_TRIPS = "warmup-round-trips";
  static final String LOOPS = "loops";

  private static final List<Field> FIELDS =
      List.of(
          new Field(
              "usPerRoundTrip",
              Unit.MICROS,
              "wall time / (connections x round trips), all connections running at once"),
          new Field("wallMs", Unit.MILLIS, "time for every connection's round trips"),
          new Field("roundTrips", Unit.COUNT, "round trips in the measurement, all connections"));

  @Override
  public String name() {
    return "pingpong";
  }

  @Override
  public String summary() {
    return "small-message round trips on many connections at once (per-read fixed cost)";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(CONNECTIONS, "32", "connections, all running at once"),
        new Option(ROUND_TRIPS, "5000", "round trips per connection"),
        new Option(SIZE, "512", "bytes per message"),
        new Option(WARMUP_ROUND_TRIPS, "500", "round trips per connection before measuring"),
        new Option(
            LOOPS,
            Integer.toString(Runtime.getRuntime().availableProcessors()),
            "event loop threads of the measured side (both arms)"));
  }

  @Override
  public List<Field> fields(Params params) {
    return FIELDS;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    return JvmFlags.maxHeapMiB(512);
  }

  @Override
  public Set<Impl> arms(Params params) {
    return Impl.sluiceAndNetty();
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    return role == Role.PEER ? new EchoPeer() : control -> drive(control, impl);
  }

  private static void drive(ChildControl control, Impl impl) throws Exception {
    Params params = control.params();
    int connections = params.intCount(CONNECTIONS);
    int rounds = params.intCount(ROUND_TRIPS);
    int size = params.intBytes(SIZE);
    Integrity integrity = new Integrity();
    EchoSetup setup =
        new EchoSetup(PeerAddress.of(params), params.intCount(LOOPS), size, integrity);
    try (EchoClients clients = EchoImpls.create(impl, setup)) {
      clients.connect(connections);
      clients.run(size, params.intCount(WARMUP_ROUND_TRIPS));
      JvmMemory.settle();
      control.send("READY");
      control.await("GO");
      long start = System.nanoTime();
      clients.run(size, rounds);
      long wallNanos = System.nanoTime() - start;
      long roundTrips = (long) connections * rounds;
      Map<String, Object> done = new LinkedHashMap<>();
      done.put("usPerRoundTrip", wallNanos / 1e3 / roundTrips);
      done.put("wallMs", wallNanos / 1e6);
      done.put("roundTrips", roundTrips);
      control.send("DONE", integrity.addTo(done));
      control.await("EXIT");
    }
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    return Steps.readyGoDone(context, impl, FIELDS);
  }
}
