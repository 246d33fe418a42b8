package dev.sluice.proxy.admin;

import dev.sluice.memory.MemoryStats;
import dev.sluice.net.EventLoop;
import dev.sluice.proxy.cluster.Cluster;
import dev.sluice.proxy.cluster.UpstreamTarget;
import dev.sluice.proxy.config.Endpoint;
import dev.sluice.proxy.config.Units;
import dev.sluice.proxy.forward.Pair;
import dev.sluice.proxy.forward.PairRegistry;
import dev.sluice.proxy.metrics.Sampler;
import dev.sluice.proxy.runtime.ListenerRuntime;
import dev.sluice.proxy.runtime.ProxyRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The runtime tree as text: group, then each loop with its memory and its pairs by listener, each
 * pair with its state and pending bytes. Each loop lists its own pairs on its own thread (they are
 * loop-confined), so the dump is consistent per loop; a loop that does not answer in time is said
 * to be stuck rather than waited for.
 */
public final class RuntimeDump {
  /** The most pairs listed per loop; the rest are counted. */
  public static final int DEFAULT_PAIRS_PER_LOOP = 1000;

  private static final long ANSWER_MILLIS = 2000;

  private RuntimeDump() {}

  /** The dump of {@code runtime}, listing at most {@code pairsPerLoop} pairs on each loop. */
  public static String take(ProxyRuntime runtime, Sampler sampler, int pairsPerLoop) {
    StringBuilder out = new StringBuilder(4096);
    List<EventLoop> loops = runtime.group().loops();
    MemoryStats total = runtime.group().memoryStats();
    out.append("group: ").append(loops.size()).append(" loops on ");
    out.append(runtime.group().transport().id()).append(", ");
    memory(out, total);
    out.append(", in flight ")
        .append(Units.formatBytes(runtime.budget().used()))
        .append(" of ")
        .append(Units.formatBytes(runtime.budget().max()))
        .append(" (peak ")
        .append(Units.formatBytes(runtime.budget().peak()))
        .append(")\n");
    List<CompletableFuture<String>> answers = new ArrayList<>();
    for (EventLoop loop : loops) {
      CompletableFuture<String> answer = new CompletableFuture<>();
      loop.submit(
          () -> answer.complete(pairsOf(loop, pairsPerLoop)),
          () -> answer.complete("    (the loop has stopped)\n"));
      answers.add(answer);
    }
    for (int i = 0; i < loops.size(); i++) {
      EventLoop loop = loops.get(i);
      out.append("  loop ").append(loop).append(": longest turn ");
      out.append(Units.formatNanos(sampler.longestTurnNanos(loop)));
      out.append(" (").append(Sampler.WINDOW).append(" s), ");
      memory(out, loop.memoryStats());
      out.append('\n');
      try {
        out.append(answers.get(i).get(ANSWER_MILLIS, TimeUnit.MILLISECONDS));
      } catch (TimeoutException e) {
        out.append("    (no answer within ")
            .append(ANSWER_MILLIS)
            .append(" ms: the loop is stuck in a callback)\n");
      } catch (ExecutionException e) {
        out.append("    (failed: ").append(e.getCause()).append(")\n");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        out.append("    (interrupted)\n");
        break;
      }
    }
    out.append("listeners:\n");
    for (ListenerRuntime l : runtime.listeners()) {
      out.append("  ")
          .append(l.name())
          .append(' ')
          .append(Endpoint.format(l.boundAddress()))
          .append(l.isBound() ? "" : " (not bound)")
          .append(l.tlsEngine() == null ? "" : " tls engine " + l.tlsEngine())
          .append(": ")
          .append(l.stats().openCount())
          .append(" open, ")
          .append(l.stats().acceptedCount())
          .append(" accepted\n");
    }
    out.append("clusters:\n");
    long now = System.nanoTime();
    for (Cluster c : runtime.clusters().values()) {
      out.append("  ")
          .append(c.name())
          .append(" (")
          .append(c.config().balance().name().toLowerCase());
      out.append("):\n");
      for (UpstreamTarget u : c.upstreams()) {
        out.append("    ")
            .append(u.name())
            .append(' ')
            .append(u.health().state(now).name().toLowerCase())
            .append(u.draining() ? " draining" : "")
            .append(", ")
            .append(u.active())
            .append(" active, ")
            .append(u.connects())
            .append(" connects, ")
            .append(u.connectFailures())
            .append(" failed");
        String problem = u.health().lastProblem();
        if (problem != null) {
          out.append(", last problem: ").append(problem);
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  /** On {@code loop}: its pairs, grouped by listener. */
  private static String pairsOf(EventLoop loop, int limit) {
    long now = System.nanoTime();
    Map<String, List<String>> byListener = new TreeMap<>();
    int[] seen = {0};
    PairRegistry registry = PairRegistry.of(loop);
    registry.forEach(
        pair -> {
          if (seen[0]++ < limit) {
            byListener
                .computeIfAbsent(pair.listenerName(), n -> new ArrayList<>())
                .add(line(pair, now));
          }
        });
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, List<String>> e : byListener.entrySet()) {
      out.append("    listener ").append(e.getKey()).append(": ");
      out.append(e.getValue().size()).append(" pairs\n");
      for (String line : e.getValue()) {
        out.append("      ").append(line).append('\n');
      }
    }
    if (seen[0] > limit) {
      out.append("    ... and ").append(seen[0] - limit).append(" more pairs\n");
    }
    if (seen[0] == 0) {
      out.append("    no pairs\n");
    }
    return out.toString();
  }

  private static String line(Pair pair, long now) {
    return pair.dumpLine(now);
  }

  private static void memory(StringBuilder out, MemoryStats m) {
    out.append("slabs ").append(Units.formatBytes(m.slabBytesReserved()));
    out.append(", handed off ").append(Units.formatBytes(m.handedOffBytes()));
    out.append(" in ").append(m.handedOffChunks()).append(" chunks");
    out.append(", pending writes ").append(Units.formatBytes(m.pendingWriteBytes()));
    out.append(", copies ").append(Units.formatBytes(m.pendingCopyBytes()));
    out.append(", TLS ").append(Units.formatBytes(m.tlsBufferBytes() + m.tlsHeldCiphertextBytes()));
  }
}
