package dev.sluice.proxy.runtime;

import dev.sluice.proxy.config.ClusterConfig;
import dev.sluice.proxy.config.ListenerTls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * What the files of a cluster's upstream TLS (its CA, client certificate and key) or of a
 * listener's TLS (its certificates, keys and client CA) held, as one SHA-256 each: a reload
 * compares them, because a certificate renewed in place keeps its path and so the same
 * configuration, yet must reach new connections.
 *
 * @param digests by file; for a file that cannot be read, why (its load then fails and says so)
 */
record TlsFiles(Map<Path, String> digests) {
  /** No upstream TLS, or nothing read yet. */
  static final TlsFiles NONE = new TlsFiles(Map.of());

  /** Reads the files of {@code tls} now (null: none). Blocking: never on a loop. */
  static TlsFiles of(ClusterConfig.UpstreamTls tls) {
    return tls == null ? NONE : of(tls.files());
  }

  /** Reads the files of a terminating listener's {@code tls} now. Blocking: never on a loop. */
  static TlsFiles of(ListenerTls.Terminate tls) {
    List<Path> files = new ArrayList<>();
    tls.certificates().forEach(certificate -> files.addAll(certificate.files()));
    if (tls.clientCa() != null) {
      files.add(tls.clientCa());
    }
    if (tls.ticketKeyFile() != null) {
      files.add(tls.ticketKeyFile()); // rotated by replacing it: new keys, same certificates
    }
    return of(files);
  }

  private static TlsFiles of(List<Path> files) {
    Map<Path, String> digests = new HashMap<>();
    for (Path file : files) {
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
