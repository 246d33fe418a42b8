package dev.sluice.proxy.runtime;

import dev.sluice.proxy.config.ClusterConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/**
 * What the files of a cluster's upstream TLS (its CA, client certificate and key) held, as one
 * SHA-256 each: a reload compares them, because a certificate renewed in place keeps its path and
 * so the same configuration, yet must reach new connections.
 *
 * @param digests by file; for a file that cannot be read, why (its load then fails and says so)
 */
record TlsFiles(Map<Path, String> digests) {
  /** No upstream TLS, or nothing read yet. */
  static final TlsFiles NONE = new TlsFiles(Map.of());

  /** Reads the files of {@code tls} now (null: none). Blocking: never on a loop. */
  static TlsFiles of(ClusterConfig.UpstreamTls tls) {
    if (tls == null) {
      return NONE;
    }
    Map<Path, String> digests = new HashMap<>();
    for (Path file : tls.files()) {
      digests.put(file, digest(file));
    }
    return new TlsFiles(Map.copyOf(digests));
  }

  private static String digest(Path file) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (IOException e) {
      return "unreadable: " + e; // never equal to a content's digest
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
