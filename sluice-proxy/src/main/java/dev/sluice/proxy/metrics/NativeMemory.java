package dev.sluice.proxy.metrics;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The JVM's Native Memory Tracking summary (what {@code jcmd PID VM.native_memory summary} prints),
 * when the JVM runs with {@code -XX:NativeMemoryTracking=summary}: committed and reserved bytes per
 * category, with "Total" first. Read through the DiagnosticCommand MBean, in process.
 */
public final class NativeMemory {
  private static final Pattern TOTAL =
      Pattern.compile("^Total: reserved=(\\d+)KB, committed=(\\d+)KB", Pattern.MULTILINE);
  private static final Pattern CATEGORY =
      Pattern.compile("^-\\s+(.+?) \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)", Pattern.MULTILINE);

  /** One category's bytes. */
  public record Category(long reservedBytes, long committedBytes) {}

  private NativeMemory() {}

  /** Whether this JVM tracks native memory. */
  public static boolean enabled() {
    try {
      String mode =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
              .getVMOption("NativeMemoryTracking")
              .getValue();
      return !mode.equals("off");
    } catch (IllegalArgumentException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** The summary now, by category ("Total" first); empty when tracking is off or unreadable. */
  public static Map<String, Category> summary() {
    String text;
    try {
      Object out =
          ManagementFactory.getPlatformMBeanServer()
              .invoke(
                  new ObjectName("com.sun.management:type=DiagnosticCommand"),
                  "vmNativeMemory",
                  new Object[] {new String[] {"summary", "scale=KB"}},
                  new String[] {String[].class.getName()});
      text = String.valueOf(out);
    } catch (JMException | RuntimeException e) {
      return Map.of();
    }
    return parse(text);
  }

  /** Parses a summary printed with {@code scale=KB}. */
  static Map<String, Category> parse(String text) {
    Map<String, Category> categories = new LinkedHashMap<>();
    Matcher total = TOTAL.matcher(text);
    if (total.find()) {
      categories.put("Total", category(total.group(1), total.group(2)));
    }
    Matcher m = CATEGORY.matcher(text);
    while (m.find()) {
      categories.put(m.group(1).strip(), category(m.group(2), m.group(3)));
    }
    return categories;
  }

  private static Category category(String reservedKb, String committedKb) {
    return new Category(Long.parseLong(reservedKb) * 1024, Long.parseLong(committedKb) * 1024);
  }
}
