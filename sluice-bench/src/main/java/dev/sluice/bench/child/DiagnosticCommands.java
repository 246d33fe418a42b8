package dev.sluice.bench.child;

import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * HotSpot's diagnostic commands ({@code jcmd PID ...}) run inside the measured child through the
 * DiagnosticCommand MBean, so the process that is measured need not be attached to from outside.
 */
public final class DiagnosticCommands {
  private DiagnosticCommands() {}

  /**
   * Runs one command and returns what it printed.
   *
   * @param operation the MBean's name for the command: {@code gcClassHistogram} for {@code
   *     GC.class_histogram}, {@code vmNativeMemory} for {@code VM.native_memory}...
   * @param arguments the command's arguments, as jcmd takes them ({@code summary.diff})
   * @throws IllegalStateException if the command does not exist or fails
   */
  public static String run(String operation, String... arguments) {
    try {
      return (String)
          ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  new ObjectName("com.sun.management:type=DiagnosticCommand"),
                  operation,
                  new Object[] {arguments},
                  new String[] {String[].class.getName()});
    } catch (JMException e) {
      throw new IllegalStateException(
          "diagnostic command " + operation + " failed: " + e.getMessage(), e);
    }
  }
}
