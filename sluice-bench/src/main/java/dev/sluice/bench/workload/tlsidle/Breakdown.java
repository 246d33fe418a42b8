package dev.sluice.bench.workload.tlsidle;

import dev.sluice.bench.child.JvmLayout;
import dev.sluice.bench.child.JvmMemory;
import dev.sluice.bench.child.MallocInfo;
import dev.sluice.bench.child.NativeMemoryDiff;
import dev.sluice.bench.harness.AddressRange;
import dev.sluice.bench.harness.Field;
import dev.sluice.bench.harness.Message;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.harness.Smaps;
import dev.sluice.bench.harness.Unit;
import java.lang.management.MemoryPoolMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --breakdown on}: where the measured server's RSS growth goes, between the same two settled
 * points as {@code bytesPerConnection}. The harness splits the server's {@code /proc/PID/smaps}
 * into the Java heap and the code cache (their address ranges as the JVM reports them) and the
 * rest, anonymous or file-backed; the server adds what Native Memory Tracking says the JVM
 * committed (every child then runs with {@code -XX:NativeMemoryTracking=summary}, the same in every
 * arm), what glibc's malloc arenas hold, and the old generation's high-water mark. After the
 * measurement the server trims its malloc arenas and the harness reads how much RSS that gave back:
 * freed memory the C library had kept.
 */
final class Breakdown {
  static final String OPTION = "breakdown";

  /** Fields of the first SETTLED (the baseline) and the second. */
  private static final String HEAP_RANGE = "javaHeapRange";

  private static final String CODE_RANGE = "codeCacheRange";
  private static final String OLD_USED = "oldGenUsed";
  private static final String OLD_PEAK = "oldGenPeak";
  private static final String MALLOC_IN_USE = "mallocInUse";
  private static final String MALLOC_FREE = "mallocFree";
  private static final String NMT = "nmt.";

  /** NMT's categories reported on their own, by field id; the others go to {@code rest}. */
  private static final Map<String, String> NMT_CATEGORIES = nmtCategories();

  private final MemoryPoolMXBean oldGeneration;

  private Breakdown() {
    this.oldGeneration = JvmMemory.oldGeneration();
  }

  private static Map<String, String> nmtCategories() {
    Map<String, String> categories = new LinkedHashMap<>();
    categories.put("class", "Class");
    categories.put("thread", "Thread");
    categories.put("code", "Code");
    categories.put("gc", "GC");
    categories.put("compiler", "Compiler");
    categories.put("arenaChunk", "Arena Chunk");
    categories.put("internal", "Internal");
    categories.put("symbol", "Symbol");
    categories.put("other", "Other");
    categories.put("tracking", "Native Memory Tracking");
    return categories;
  }

  /** Whether {@code params} ask for it ({@code on} or {@code off}). */
  static boolean requested(Params params) {
    return switch (params.string(OPTION)) {
      case "on" -> true;
      case "off" -> false;
      default ->
          throw new IllegalArgumentException(
              "--breakdown expects on or off, got '" + params.string(OPTION) + "'");
    };
  }

  /** The extra JVM flag of every child (both sides, every arm). */
  static List<String> jvmFlags() {
    return List.of("-XX:NativeMemoryTracking=summary");
  }

  static List<Field> fields() {
    List<Field> fields = new ArrayList<>();
    fields.add(
        new Field(
            "rssPerConnectionBy.javaHeap",
            Unit.BYTES,
            "RSS growth (smaps) inside the Java heap's reserved range / connections"));
    fields.add(
        new Field(
            "rssPerConnectionBy.codeCache",
            Unit.BYTES,
            "RSS growth (smaps) inside the code cache's reserved range / connections"));
    fields.add(
        new Field(
            "rssPerConnectionBy.otherAnonymous",
            Unit.BYTES,
            "anonymous RSS growth elsewhere (malloc arenas, metaspace, thread stacks, GC data)"
                + " / connections"));
    fields.add(
        new Field(
            "rssPerConnectionBy.fileBacked",
            Unit.BYTES,
            "file-backed RSS growth (libraries, the JDK's modules image, CDS) / connections"));
    fields.add(
        new Field(
            "oldGenPeakPerConnection",
            Unit.BYTES,
            "old generation's peak use during the connections minus its use at the baseline"
                + " / connections"));
    fields.add(
        new Field(
            "nmtPerConnection",
            Unit.BYTES,
            "NMT: committed growth outside the Java heap / connections"));
    for (String id : NMT_CATEGORIES.keySet()) {
      fields.add(
          new Field(
              "nmtPerConnectionBy." + id,
              Unit.BYTES,
              "NMT: committed growth of " + NMT_CATEGORIES.get(id) + " / connections"));
    }
    fields.add(
        new Field(
            "nmtPerConnectionBy.rest", Unit.BYTES, "NMT: the other categories / connections"));
    fields.add(
        new Field(
            "mallocPerConnectionBy.inUse",
            Unit.BYTES,
            "glibc malloc_info: growth of bytes allocated and not freed / connections"));
    fields.add(
        new Field(
            "mallocPerConnectionBy.free",
            Unit.BYTES,
            "glibc malloc_info: growth of freed bytes the arenas keep / connections"));
    fields.add(
        new Field(
            "trimmedBytes",
            Unit.BYTES,
            "VmRSS given back by System.trim_native_heap after the measurement (total)"));
    return fields;
  }

  // ---- in the measured server ----

  /** At the baseline: sets NMT's baseline and says where the heap and code cache are. */
  static Breakdown baseline(Map<String, Object> fields) {
    Breakdown breakdown = new Breakdown();
    JvmLayout layout = JvmLayout.now();
    fields.put(HEAP_RANGE, layout.javaHeap().format());
    fields.put(CODE_RANGE, layout.codeCache().format());
    putMalloc(fields);
    breakdown.oldGeneration.resetPeakUsage();
    fields.put(OLD_USED, breakdown.oldGeneration.getUsage().getUsed());
    NativeMemoryDiff.baseline();
    return breakdown;
  }

  /** At the second settle: what NMT, malloc and the old generation say now. */
  void idle(Map<String, Object> fields) {
    fields.put(OLD_PEAK, oldGeneration.getPeakUsage().getUsed());
    NativeMemoryDiff diff = NativeMemoryDiff.sinceBaseline();
    long listed = diff.growth("Java Heap");
    for (var category : NMT_CATEGORIES.entrySet()) {
      fields.put(NMT + category.getKey(), diff.growth(category.getValue()));
      listed += diff.growth(category.getValue());
    }
    fields.put(NMT + "rest", diff.totalCommittedGrowthBytes() - listed);
    fields.put(NMT + "total", diff.totalCommittedGrowthBytes() - diff.growth("Java Heap"));
    putMalloc(fields);
  }

  private static void putMalloc(Map<String, Object> fields) {
    MallocInfo malloc = MallocInfo.now();
    fields.put(MALLOC_IN_USE, malloc.inUseBytes());
    fields.put(MALLOC_FREE, malloc.freeBytes());
  }

  // ---- in the harness ----

  /** The breakdown's figures per connection, from both SETTLED messages and both smaps. */
  static Map<String, Double> perConnection(
      Message baseline, Message idle, Smaps before, Smaps after, int connections) {
    AddressRange heap = AddressRange.parse(baseline.field(HEAP_RANGE));
    AddressRange code = AddressRange.parse(baseline.field(CODE_RANGE));
    List<AddressRange> both = List.of(heap, code);
    Map<String, Double> values = new LinkedHashMap<>();
    values.put(
        "rssPerConnectionBy.javaHeap",
        per(after.rssWithin(heap) - before.rssWithin(heap), connections));
    values.put(
        "rssPerConnectionBy.codeCache",
        per(after.rssWithin(code) - before.rssWithin(code), connections));
    values.put(
        "rssPerConnectionBy.otherAnonymous",
        per(after.anonymousOutside(both) - before.anonymousOutside(both), connections));
    values.put(
        "rssPerConnectionBy.fileBacked",
        per(after.fileBackedOutside(both) - before.fileBackedOutside(both), connections));
    values.put(
        "oldGenPeakPerConnection",
        per(idle.longValue(OLD_PEAK) - baseline.longValue(OLD_USED), connections));
    values.put("nmtPerConnection", per(idle.longValue(NMT + "total"), connections));
    for (String id : NMT_CATEGORIES.keySet()) {
      values.put("nmtPerConnectionBy." + id, per(idle.longValue(NMT + id), connections));
    }
    values.put("nmtPerConnectionBy.rest", per(idle.longValue(NMT + "rest"), connections));
    values.put(
        "mallocPerConnectionBy.inUse",
        per(idle.longValue(MALLOC_IN_USE) - baseline.longValue(MALLOC_IN_USE), connections));
    values.put(
        "mallocPerConnectionBy.free",
        per(idle.longValue(MALLOC_FREE) - baseline.longValue(MALLOC_FREE), connections));
    return values;
  }

  private static double per(long growth, int connections) {
    return growth / (double) connections;
  }
}
