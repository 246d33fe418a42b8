package dev.sluice.bench.harness;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What a workload's {@link Workload#run} gets: its options, the time it may wait for a child at
 * each step, and a way to start the two child JVMs with the same java binary, class path and flags
 * as every other run.
 */
public final class RunContext {
  /** The parameter that tells the measured side the peer's port. */
  public static final String PEER_PORT = "peerPort";

  private final Workload workload;
  private final Params params;
  private final List<String> jvmFlags;
  private final Duration stepTimeout;

  /**
   * @param workload the workload being run
   * @param params its options (the children get the same)
   * @param jvmFlags the flags of both children
   * @param stepTimeout how long to wait for any one protocol line
   */
  public RunContext(Workload workload, Params params, List<String> jvmFlags, Duration stepTimeout) {
    this.workload = workload;
    this.params = params;
    this.jvmFlags = List.copyOf(jvmFlags);
    this.stepTimeout = stepTimeout;
  }

  /** The run's options. */
  public Params params() {
    return params;
  }

  /** How long to wait for a child's next protocol line. */
  public Duration stepTimeout() {
    return stepTimeout;
  }

  /** Starts the peer JVM. */
  public ChildProcess startPeer() throws IOException {
    return startPeer(Params.of(java.util.Map.of()));
  }

  /**
   * Starts the peer JVM with {@code extra} params, e.g. the port of a measured server when the peer
   * is the one that connects (an idle-connections workload measures the server).
   */
  public ChildProcess startPeer(Params extra) throws IOException {
    return startPeer("peer", extra);
  }

  /**
   * Starts a peer JVM named {@code label} in messages, with {@code extra} params: a workload with
   * more than one peer process (the proxy workloads' load client and echo upstream) tells them
   * apart by a param.
   */
  public ChildProcess startPeer(String label, Params extra) throws IOException {
    return ChildProcess.start(label, command(Role.PEER, null, merged(extra)));
  }

  /** The flags the children started here run with. */
  public List<String> jvmFlags() {
    return jvmFlags;
  }

  /** Starts the measured JVM for {@code impl}, with {@code extra} params (e.g. the peer's port). */
  public ChildProcess startMeasured(Impl impl, Params extra) throws IOException {
    return ChildProcess.start(impl.id(), command(Role.MEASURED, impl, merged(extra)));
  }

  private Params merged(Params extra) {
    Params all = params;
    for (var e : extra.asMap().entrySet()) {
      all = all.with(e.getKey(), e.getValue());
    }
    return all;
  }

  /** Starts the measured JVM for {@code impl}, telling it the peer listens on {@code peerPort}. */
  public ChildProcess startMeasured(Impl impl, String peerPort) throws IOException {
    return startMeasured(impl, Params.of(java.util.Map.of(PEER_PORT, peerPort)));
  }

  private List<String> command(Role role, Impl impl, Params childParams) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmFlags);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ChildMain.class.getName());
    command.add(role.id());
    command.add(workload.name());
    command.add(impl == null ? "-" : impl.id());
    command.addAll(childParams.toArgs());
    return command;
  }
}
