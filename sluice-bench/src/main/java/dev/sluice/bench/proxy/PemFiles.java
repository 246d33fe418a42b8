package dev.sluice.bench.proxy;

import dev.sluice.bench.tls.BenchCertificate;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.bench.tls.KeyType;
import dev.sluice.bench.tls.TlsVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark certificate ({@link BenchCertificate}) as the PEM files every proxy arm loads: the
 * certificate, its PKCS#8 private key, and both in one file (HAProxy's {@code crt}). Written once
 * per harness process into a temporary directory, deleted when it exits.
 *
 * @param certificate the certificate ({@code CERTIFICATE})
 * @param key the private key ({@code PRIVATE KEY}, PKCS#8, unencrypted)
 * @param combined certificate then key
 */
public record PemFiles(Path certificate, Path key, Path combined) {
  private static final Map<KeyType, PemFiles> SHARED = new EnumMap<>(KeyType.class);

  /** The PEM files of this process's (EC P-256) benchmark certificate. */
  public static PemFiles shared() throws IOException, GeneralSecurityException {
    return shared(KeyType.ECDSA_P256);
  }

  /** The PEM files of this process's benchmark certificate with a {@code type} key. */
  public static synchronized PemFiles shared(KeyType type)
      throws IOException, GeneralSecurityException {
    PemFiles shared = SHARED.get(type);
    if (shared == null) {
      BenchTls tls =
          BenchTls.from(
              BenchCertificate.shared(type)
                  .params()
                  .with(TlsVersion.OPTION, TlsVersion.TLS_1_3.id()));
      Path dir = Files.createTempDirectory("sluice-bench-pem");
      String cert = pem("CERTIFICATE", tls.certificate().getEncoded());
      String key = pem("PRIVATE KEY", tls.key().getEncoded());
      PemFiles files =
          new PemFiles(
              dir.resolve("server.crt"), dir.resolve("server.key"), dir.resolve("both.pem"));
      Files.writeString(files.certificate, cert, StandardCharsets.US_ASCII);
      Files.writeString(files.key, key, StandardCharsets.US_ASCII);
      Files.writeString(files.combined, cert + key, StandardCharsets.US_ASCII);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      for (Path p : List.of(files.certificate, files.key, files.combined, dir)) {
                        Files.deleteIfExists(p);
                      }
                    } catch (IOException ignored) {
                      // A temporary file left behind is harmless.
                    }
                  },
                  "delete-bench-pem"));
      shared = files;
      SHARED.put(type, files);
    }
    return shared;
  }

  private static String pem(String type, byte[] der) {
    String body =
        Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }
}
