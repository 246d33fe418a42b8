package dev.sluice.proxy.service;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/**
 * POSIX signal handlers (SIGHUP: reload; SIGUSR1: reopen the access log) through the JDK's {@code
 * sun.misc.Signal}, the one way a Java process can handle them. It is reached reflectively because
 * the compiler flags every direct use of that class and this build treats warnings as errors; if it
 * is missing, the handler is not installed and {@link #handle} says so.
 */
public final class Signals {
  private Signals() {}

  /**
   * Runs {@code action} (on a JDK signal thread) whenever the process receives {@code name} (such
   * as {@code HUP}).
   *
   * @return whether the handler was installed
   */
  public static boolean handle(String name, Runnable action) {
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
      signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
      return true;
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      return false;
    }
  }
}
