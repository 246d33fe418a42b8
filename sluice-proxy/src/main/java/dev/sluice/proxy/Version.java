package dev.sluice.proxy;

import dev.sluice.net.Transport;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

/**
 * Sluice's version and the commit it was built from, as the CLI, the status page and the metrics
 * report them. The build writes both into {@code build.properties}; a build from sources without
 * their git history has no commit, reported as {@code unknown}.
 */
public final class Version {
  private static final Properties BUILD = load();

  /** The release, as the build's project version spells it (e.g. {@code 0.1.0-SNAPSHOT}). */
  public static final String NUMBER = BUILD.getProperty("version", "unknown");

  /** The abbreviated commit, with {@code -dirty} when the working tree had changes. */
  public static final String COMMIT = commit();

  /**
   * The TLS engine a listener left on {@code engine: auto} runs (upstream TLS runs on the JDK):
   * OpenSSL when libssl.so.3 loads in this JVM, else the JDK's SSLEngine (SunJSSE); with why, or
   * which OpenSSL.
   */
  public static String tlsEngine() {
    String reason = dev.sluice.tls.TlsEngineKind.openSslUnavailableReason();
    return reason == null
        ? "openssl (auto; " + dev.sluice.tls.TlsEngineKind.openSslVersion() + ")"
        : "jdk (auto; OpenSSL: " + reason + ")";
  }

  private Version() {}

  /** What {@code sluice --version} prints, one fact per line. */
  public static List<String> describe() {
    Runtime.Version jdk = Runtime.version();
    return List.of(
        "sluice " + NUMBER + " (commit " + COMMIT + ")",
        "jdk: "
            + jdk
            + " ("
            + System.getProperty("java.vm.vendor", "unknown vendor")
            + ") at "
            + System.getProperty("java.home"),
        "transport: " + autoTransport(),
        "tls engine: " + tlsEngine());
  }

  /**
   * What {@code transport: auto} runs on in this JVM (a configuration may name another), and why
   * when it is not epoll.
   */
  public static String autoTransport() {
    Transport auto = Transport.AUTO.resolve();
    return auto.id()
        + " (auto"
        + Transport.epollUnavailable().map(why -> "; epoll unavailable: " + why).orElse("")
        + ")";
  }

  private static String commit() {
    String id = BUILD.getProperty("commit", "");
    if (id.isBlank() || id.startsWith("${")) {
      return "unknown";
    }
    return "true".equals(BUILD.getProperty("dirty")) ? id + "-dirty" : id;
  }

  private static Properties load() {
    Properties properties = new Properties();
    try (InputStream in = Version.class.getResourceAsStream("build.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading build.properties", e);
    }
    return properties;
  }
}
