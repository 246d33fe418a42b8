package dev.sluice.bench.workload.tlsidle;

import dev.sluice.bench.child.MeasuredAddress;
import dev.sluice.bench.harness.ChildProcess;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Impl;
import dev.sluice.bench.harness.JvmFlags;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Option;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.ProcStatus;
import dev.sluice.bench.harness.Role;
import dev.sluice.bench.harness.RunContext;
import dev.sluice.bench.harness.RunResult;
import dev.sluice.bench.harness.Smaps;
import dev.sluice.bench.harness.Unit;
import dev.sluice.bench.harness.Workload;
import dev.sluice.bench.tls.BenchCertificate;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.TlsVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Idle TLS connections on a server (seed 004's measuring discipline): the measured process is an
 * echo server; the peer opens N connections, exchanges one message on each and leaves them open and
 * silent. The harness reads the server's VmRSS from /proc before and after, each time right after
 * the server settled (young generation cycled, full GC); the server counts its live heap by class
 * and its native memory, so the RSS per connection can be explained: what the JDK's TLS engine
 * keeps, what the library adds, what the JDK's socket objects cost. {@code --transport plain} is
 * the control without TLS.
 */
public final class TlsIdleWorkload implements Workload {
  static final String CONNECTIONS = "connections";
  static final String EXCHANGE = "exchange";
  static final String WARMUP = "warmup-connections";
  static final String SETTLE_MS = "settle-ms";

  private static final List<Field> FIELDS;

  static {
    List<Field> fields = new ArrayList<>();
    fields.add(
        new Field(
            "bytesPerConnection",
            Unit.BYTES,
            "growth of the server's VmRSS (from /proc, by the harness) / connections"));
    fields.add(
        new Field(
            "heapPerConnection",
            Unit.BYTES,
            "growth of the server's live heap (class histogram after a full GC) / connections"));
    fields.add(
        new Field(
            "nativePerConnection",
            Unit.BYTES,
            "growth of native memory (Sluice's MemoryStats, Netty's allocator metric) / connections"));
    for (HeapOwner owner : HeapOwner.values()) {
      fields.add(
          new Field(
              "heapPerConnectionBy." + owner.id(),
              Unit.BYTES,
              "the part of heapPerConnection in classes of " + owner.id()));
    }
    fields.add(new Field("connectMs", Unit.MILLIS, "time the peer took to open and exchange all"));
    FIELDS = List.copyOf(fields);
  }

  @Override
  public String name() {
    return "tlsidle";
  }

  @Override
  public String summary() {
    return "idle TLS connections after a 16 KiB exchange; server RSS and heap per connection";
  }

  @Override
  public List<Option> options() {
    return List.of(
        new Option(CONNECTIONS, "5000", "idle connections (each is one fd in each process)"),
        new Option(EXCHANGE, "16k", "bytes each connection sends and gets echoed before idling"),
        new Option(
            WARMUP,
            "6000",
            "connections opened, exchanged and closed (4 at a time) before measuring"),
        new Option(
            SETTLE_MS,
            "6000",
            "wait before each memory reading, once the compilers are quiet (longer than the 5 s"
                + " after which HotSpot frees the arena chunks compilations gave back)"),
        new Option(Transport.OPTION, "tls", "tls, or plain for the control without TLS"),
        new Option(TlsVersion.OPTION, "1.3", "TLS version: 1.3 or 1.2"),
        new Option(
            Breakdown.OPTION,
            "off",
            "on: also split the RSS growth by smaps, NMT and malloc (all children run with NMT)"));
  }

  @Override
  public List<Field> fields(Params params) {
    if (params.intCount(CONNECTIONS) < 1) {
      throw new IllegalArgumentException("--connections must be at least 1");
    }
    if (params.intCount(CONNECTIONS) > 19_000) {
      throw new IllegalArgumentException(
          "--connections above 19000 would pass 20,000 open files in a process");
    }
    if (params.intBytes(EXCHANGE) < 1) {
      throw new IllegalArgumentException("--exchange must be at least 1 byte");
    }
    params.count(SETTLE_MS);
    Transport.parse(params.string(Transport.OPTION));
    TlsVersion.parse(params.string(TlsVersion.OPTION));
    if (Breakdown.requested(params)) {
      List<Field> fields = new ArrayList<>(FIELDS);
      fields.addAll(Breakdown.fields());
      return List.copyOf(fields);
    }
    return FIELDS;
  }

  @Override
  public List<String> memoryFlags(Params params) {
    // The peer holds every client socket (a JDK SSLSocket keeps a few KB); a limit reserves
    // nothing.
    List<String> flags = new ArrayList<>(JvmFlags.maxHeapMiB(1024));
    if (Breakdown.requested(params)) {
      flags.addAll(Breakdown.jvmFlags());
    }
    return List.copyOf(flags);
  }

  @Override
  public Map<String, String> conditions(Params params) {
    String measured =
        "the echo server; the peer opens the connections with blocking JDK sockets, the same in"
            + " every arm";
    if (Transport.parse(params.string(Transport.OPTION)) == Transport.PLAIN) {
      return Map.of("transport", "plain TCP (the control: no TLS)", "measured", measured);
    }
    return TlsVersion.parse(params.string(TlsVersion.OPTION)).conditions(measured);
  }

  /** Every arm with TLS; plain TCP has no OpenSSL arm (it would be the Netty arm again). */
  @Override
  public Set<Impl> arms(Params params) {
    return Transport.parse(params.string(Transport.OPTION)) == Transport.PLAIN
        ? EnumSet.of(Impl.SLUICE, Impl.NETTY)
        : EnumSet.of(Impl.SLUICE, Impl.NETTY, Impl.NETTY_OPENSSL);
  }

  @Override
  public ChildProgram program(Role role, Impl impl) {
    return role == Role.PEER ? new IdleClients() : new IdleServerDriver(impl);
  }

  @Override
  public RunResult run(RunContext context, Impl impl) throws Exception {
    Duration timeout = context.stepTimeout();
    int connections = context.params().intCount(CONNECTIONS);
    Params certificate = BenchCertificate.shared().params();
    try (ChildProcess measured = context.startMeasured(impl, certificate)) {
      Message listening = measured.await("LISTENING", timeout);
      try (ChildProcess peer =
          context.startPeer(certificate.with(MeasuredAddress.PORT, listening.field("port")))) {
        peer.await("WARM", timeout);
        measured.send("SETTLE");
        boolean breakdown = Breakdown.requested(context.params());
        Message baseline = measured.await("SETTLED", timeout);
        ProcStatus before = measured.procStatus();
        Smaps smapsBefore = breakdown ? Smaps.read(measured.pid()) : null;
        peer.send("GO");
        Message connected = peer.await("CONNECTED", timeout);
        measured.send("SETTLE");
        Message idle = measured.await("SETTLED", timeout);
        ProcStatus after = measured.procStatus();
        Smaps smapsAfter = breakdown ? Smaps.read(measured.pid()) : null;
        if (idle.longValue("connections") != connections
            || connected.longValue("connections") != connections) {
          throw new IllegalStateException(
              "expected "
                  + connections
                  + " idle connections; the server has "
                  + idle.field("connections")
                  + ", the peer "
                  + connected.field("connections"));
        }

        Map<String, Double> values = new LinkedHashMap<>();
        values.put(
            "bytesPerConnection",
            perConnection(after.vmRssBytes() - before.vmRssBytes(), connections));
        values.put("heapPerConnection", perConnection(idle, baseline, "heapBytes", connections));
        values.put(
            "nativePerConnection", perConnection(idle, baseline, "nativeBytes", connections));
        for (HeapOwner owner : HeapOwner.values()) {
          values.put(
              "heapPerConnectionBy." + owner.id(),
              perConnection(idle.longValue("heapGrowth." + owner.id()), connections));
        }
        values.put("connectMs", connected.number("nanos") / 1e6);
        if (breakdown) {
          values.putAll(
              Breakdown.perConnection(baseline, idle, smapsBefore, smapsAfter, connections));
          measured.send("TRIM");
          measured.await("TRIMMED", timeout);
          values.put(
              "trimmedBytes", (double) (after.vmRssBytes() - measured.procStatus().vmRssBytes()));
        }
        return RunResult.of(
                values,
                "OK".equals(connected.field("integrity")),
                "echo: " + connected.field("integrityDetail"))
            .withNotes(BenchTls.libraryNote(listening))
            .withNotes(
                Map.of(
                    "compilersQuietAtReadings",
                    baseline.field(IdleServerDriver.COMPILERS_QUIET)
                        + "/"
                        + idle.field(IdleServerDriver.COMPILERS_QUIET)));
      }
    }
  }

  private static double perConnection(Message after, Message before, String field, int n) {
    return perConnection(after.longValue(field) - before.longValue(field), n);
  }

  private static double perConnection(long growth, int n) {
    return growth / (double) n;
  }
}
