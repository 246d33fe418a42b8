package dev.sluice.proxy.service;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * POSIX signal handlers (SIGHUP: reload; SIGUSR1: reopen the access log) through the JDK's {@code
 * sun.misc.Signal}, the one way a Java process can handle them. It is reached reflectively because
 * the compiler flags every direct use of that class and this build treats warnings as errors; if it
 * is missing, the handler is not installed and {@link #handle} says so.
 *
 * <p>A process started under {@code nohup} inherits SIGHUP ignored, and HotSpot then refuses to
 * handle it (it keeps SIGHUP, SIGINT and SIGTERM ignored when they were at start), silently: {@code
 * Signal.handle} returns SIG_IGN and installs nothing. As nginx does, this class handles it anyway:
 * it resets the disposition to the default through libc's {@code signal} and installs the handler
 * again. (A hangup in the microseconds between the two would end the process, as without nohup.)
 */
public final class Signals {
  private Signals() {}

  /** What {@link #handle} did. */
  public enum Outcome {
    /** The handler is installed. */
    HANDLED,
    /**
     * The process started with the signal ignored (nohup); the handler is installed all the same.
     */
    HANDLED_THOUGH_IGNORED_AT_START,
    /** The process started with the signal ignored, and it stays so (no native access). */
    IGNORED,
    /** No handler: the JVM keeps the signal (-Xrs), or it has no {@code sun.misc.Signal}. */
    UNAVAILABLE
  }

  /**
   * Runs {@code action} (on a JDK signal thread) whenever the process receives {@code name} (such
   * as {@code HUP}).
   */
  public static Outcome handle(String name, Runnable action) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object signal = signalClass.getConstructor(String.class).newInstance(name);
      InvocationHandler invocation =
          (Object proxy, Method method, Object[] args) -> {
            if (method.getName().equals("handle")) {
              action.run();
              return null;
            }
            return switch (method.getName()) {
              case "toString" -> "Signals handler for SIG" + name;
              case "hashCode" -> System.identityHashCode(proxy);
              case "equals" -> proxy == args[0];
              default -> null;
            };
          };
      Object handler =
          Proxy.newProxyInstance(
              Signals.class.getClassLoader(), new Class<?>[] {handlerClass}, invocation);
      Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
      Object previous = handle.invoke(null, signal, handler);
      if (previous != handlerClass.getField("SIG_IGN").get(null)) {
        return Outcome.HANDLED;
      }
      int number = (int) signalClass.getMethod("getNumber").invoke(signal);
      if (!resetToDefault(number)) {
        return Outcome.IGNORED;
      }
      handle.invoke(null, signal, handler);
      return Outcome.HANDLED_THOUGH_IGNORED_AT_START;
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      return Outcome.UNAVAILABLE; // such as "Signal already used by VM or OS" (-Xrs)
    }
  }

  /** Sets signal {@code number}'s disposition to the default (libc {@code signal(n, SIG_DFL)}). */
  @SuppressWarnings("restricted") // one libc call with a fixed signature; jvm.options allows it
  private static boolean resetToDefault(int number) {
    try {
      Linker linker = Linker.nativeLinker();
      MethodHandle signal =
          linker.downcallHandle(
              linker.defaultLookup().find("signal").orElseThrow(),
              FunctionDescriptor.of(
                  ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
      MemorySegment previous = (MemorySegment) signal.invokeExact(number, MemorySegment.NULL);
      return previous.address() != -1L; // SIG_ERR
    } catch (RuntimeException e) {
      return false; // no native access (--illegal-native-access=deny), no libc signal
    } catch (Throwable e) {
      if (e instanceof VirtualMachineError fatal) {
        throw fatal;
      }
      return false; // a linkage error: the signal stays ignored, and the caller says so
    }
  }
}
