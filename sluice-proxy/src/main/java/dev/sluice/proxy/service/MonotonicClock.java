package dev.sluice.proxy.service;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code CLOCK_MONOTONIC}, the clock a service manager compares a reload's {@code MONOTONIC_USEC}
 * with, read through libc's {@code clock_gettime}; {@link System#nanoTime} (the same clock in
 * HotSpot on Linux, but not by contract) when libc cannot be called.
 */
final class MonotonicClock {
  private static final int CLOCK_MONOTONIC = 1;
  private static final MethodHandle CLOCK_GETTIME = link();

  private MonotonicClock() {}

  /** Microseconds since an arbitrary origin (boot, on Linux). */
  static long micros() {
    if (CLOCK_GETTIME != null) {
      try (Arena arena = Arena.ofConfined()) {
        MemorySegment timespec = arena.allocate(ValueLayout.JAVA_LONG, 2);
        if ((int) CLOCK_GETTIME.invokeExact(CLOCK_MONOTONIC, timespec) == 0) {
          long seconds = timespec.getAtIndex(ValueLayout.JAVA_LONG, 0);
          long nanos = timespec.getAtIndex(ValueLayout.JAVA_LONG, 1);
          return seconds * 1_000_000L + nanos / 1_000L;
        }
      } catch (Throwable e) {
        if (e instanceof Error fatal) {
          throw fatal;
        }
      }
    }
    return System.nanoTime() / 1_000L;
  }

  @SuppressWarnings("restricted") // one libc call with a fixed signature; jvm.options allows it
  private static MethodHandle link() {
    try {
      Linker linker = Linker.nativeLinker();
      return linker
          .defaultLookup()
          .find("clock_gettime")
          .map(
              f ->
                  linker.downcallHandle(
                      f,
                      FunctionDescriptor.of(
                          ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS)))
          .orElse(null);
    } catch (RuntimeException e) {
      return null; // no native access: the JDK's clock
    }
  }
}
