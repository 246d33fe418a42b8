package dev.sluice.bench.workload.tlsidle;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Whose code a heap class belongs to, by package, to say what in a per-connection heap figure is
 * the JDK's TLS engine, what the library adds, and what the JDK's socket objects are. Arrays and
 * plain {@code java.lang}/{@code java.util} objects cannot be told apart this way and stay in their
 * own groups.
 */
enum HeapOwner {
  /** Sluice's core ({@code dev.sluice}, not the benchmark's own classes). */
  SLUICE,
  /** Netty ({@code io.netty}). */
  NETTY,
  /** The JDK's TLS engine and crypto ({@code sun.security}, {@code com.sun.crypto}, JCA/JSSE). */
  JDK_TLS,
  /** The JDK's sockets and NIO ({@code sun.nio}, {@code java.nio}, {@code java.net}). */
  JDK_NET,
  /** The benchmark's own handlers ({@code dev.sluice.bench}). */
  BENCH,
  /** Arrays of any type, whoever holds them. */
  ARRAYS,
  /** Everything else: collections, locks, strings, boxed values. */
  OTHER;

  /** The owner of the class named as a class histogram names it. */
  static HeapOwner of(String className) {
    if (className.startsWith("[")) {
      return ARRAYS;
    }
    if (className.startsWith("dev.sluice.bench.")) {
      return BENCH;
    }
    if (className.startsWith("dev.sluice.")) {
      return SLUICE;
    }
    if (className.startsWith("io.netty.")) {
      return NETTY;
    }
    if (className.startsWith("sun.security.")
        || className.startsWith("com.sun.crypto.")
        || className.startsWith("javax.crypto.")
        || className.startsWith("javax.net.ssl.")
        || className.startsWith("java.security.")) {
      return JDK_TLS;
    }
    if (className.startsWith("sun.nio.")
        || className.startsWith("java.nio.")
        || className.startsWith("java.net.")) {
      return JDK_NET;
    }
    return OTHER;
  }

  /** The field-name form: {@code jdkTls}. */
  String id() {
    String[] words = name().toLowerCase(Locale.ROOT).split("_");
    StringBuilder id = new StringBuilder(words[0]);
    for (int i = 1; i < words.length; i++) {
      id.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
    }
    return id.toString();
  }

  /** Sums {@code bytesByClass} by owner. */
  static Map<HeapOwner, Long> group(Map<String, Long> bytesByClass) {
    Map<HeapOwner, Long> grouped = new EnumMap<>(HeapOwner.class);
    for (HeapOwner owner : values()) {
      grouped.put(owner, 0L);
    }
    bytesByClass.forEach((name, bytes) -> grouped.merge(of(name), bytes, Long::sum));
    return grouped;
  }
}
