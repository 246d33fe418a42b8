package dev.sluice.bench.harness;

import dev.sluice.net.Transport;
import java.util.ArrayList;
import java.util.List;

/**
 * The flags of every child JVM, the same for every arm and for the peer.
 *
 * <p>SerialGC with a small fixed young generation: a JVM's young generation stays resident once
 * allocation has cycled it, so a large one would add tens of MiB of RSS that belong to the JVM, not
 * to the code under test. No {@code -Xms} and never {@code -XX:+AlwaysPreTouch}: heap pages become
 * resident only when used, so growth shows in RSS. Native access is enabled because both Sluice's
 * slabs and Netty's buffers on JDK 25 use the FFM API.
 */
public final class JvmFlags {
  /** Flags every child gets, before the workload's heap flags. */
  public static final List<String> COMMON =
      List.of("-XX:+UseSerialGC", "-Xmn8m", "--enable-native-access=ALL-UNNAMED");

  /** The bench's option naming the Sluice arms' transport. */
  public static final String TRANSPORT_OPTION = "transport";

  private static volatile Transport transport;

  private JvmFlags() {}

  /**
   * Runs the Sluice arms on {@code choice}: children get {@code -Dsluice.transport}, the proxy's
   * configuration names it. Unset, each runs on its own default (auto).
   */
  public static void useTransport(Transport choice) {
    transport = choice;
  }

  /** The transport {@code --transport} chose, or null for each arm's default. */
  public static Transport transport() {
    return transport;
  }

  /** {@link #COMMON} followed by {@code memoryFlags} (and the chosen transport). */
  public static List<String> of(List<String> memoryFlags) {
    List<String> flags = new ArrayList<>(COMMON);
    if (transport != null) {
      flags.add("-Dsluice.transport=" + transport.id());
    }
    flags.addAll(memoryFlags);
    return List.copyOf(flags);
  }

  /** {@code -Xmx} for {@code mib} MiB. */
  public static List<String> maxHeapMiB(long mib) {
    return List.of("-Xmx" + mib + "m");
  }

  /**
   * {@code -Xmx} and an explicit direct-memory limit. The limit otherwise equals {@code -Xmx}, and
   * an implementation that holds many times the bytes it keeps (Netty's retention at 4 KiB reads
   * holds about 6x) would fail instead of being measured. A limit reserves nothing.
   */
  public static List<String> maxHeapAndDirectMiB(long heapMiB, long directMiB) {
    return List.of("-Xmx" + heapMiB + "m", "-XX:MaxDirectMemorySize=" + directMiB + "m");
  }
}
