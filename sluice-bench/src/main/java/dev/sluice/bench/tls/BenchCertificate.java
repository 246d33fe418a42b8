package dev.sluice.bench.tls;

import dev.sluice.bench.harness.Params;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The self-signed certificate every TLS benchmark uses: generated once per harness process with the
 * JDK's own {@code keytool} (so no external tool is needed) into a temporary PKCS#12 store, which
 * every arm and the peer load. EC P-256 ({@link #shared()}) or another {@link KeyType} ({@link
 * #shared(KeyType)}), for {@code localhost} and 127.0.0.1.
 *
 * @param keyStore the PKCS#12 file holding the key and its certificate
 * @param password its password
 */
public record BenchCertificate(Path keyStore, String password) {
  /** The parameter that carries {@link #keyStore} to the children. */
  public static final String KEY_STORE = "tlsKeyStore";

  /** The parameter that carries {@link #password} to the children. */
  public static final String PASSWORD = "tlsKeyStorePassword";

  /** The name the certificate is issued to; clients send it as SNI and verify it. */
  public static final String HOST = "localhost";

  /** How the certificate is made, for the report. */
  public static final String DESCRIPTION = "self-signed EC P-256 (SHA256withECDSA), from keytool";

  private static final String ALIAS = "sluice-bench";
  private static final Map<KeyType, BenchCertificate> SHARED = new EnumMap<>(KeyType.class);

  /** The EC P-256 certificate of this process, generated on first use, deleted when it exits. */
  public static BenchCertificate shared() throws IOException {
    return shared(KeyType.ECDSA_P256);
  }

  /** The certificate with a {@code type} key of this process, as {@link #shared()}. */
  public static synchronized BenchCertificate shared(KeyType type) throws IOException {
    BenchCertificate certificate = SHARED.get(type);
    if (certificate == null) {
      certificate = generate(type);
      SHARED.put(type, certificate);
    }
    return certificate;
  }

  /** The certificate a child was told about. */
  public static BenchCertificate from(Params params) {
    return new BenchCertificate(Path.of(params.string(KEY_STORE)), params.string(PASSWORD));
  }

  /** This certificate as child params. */
  public Params params() {
    return Params.of(Map.of(KEY_STORE, keyStore.toString(), PASSWORD, password));
  }

  private static BenchCertificate generate(KeyType type) throws IOException {
    Path dir = Files.createTempDirectory("sluice-bench-tls");
    Path store = dir.resolve("bench.p12");
    String password = "bench-" + Long.toHexString(System.nanoTime());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    Files.deleteIfExists(store);
                    Files.deleteIfExists(dir);
                  } catch (IOException ignored) {
                    // A temporary file left behind is harmless.
                  }
                },
                "delete-bench-certificate"));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of("-genkeypair", "-alias", ALIAS));
    command.addAll(type.keytoolArgs());
    command.addAll(
        List.of(
            "-dname",
            "CN=" + HOST,
            "-ext",
            "SAN=dns:" + HOST + ",ip:127.0.0.1",
            "-validity",
            "7",
            "-storetype",
            "PKCS12",
            "-keystore",
            store.toString(),
            "-storepass",
            password,
            "-keypass",
            password,
            "-noprompt"));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output;
    try {
      output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException("keytool did not finish within 60 s");
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while keytool ran", e);
    }
    if (process.exitValue() != 0 || !Files.isRegularFile(store)) {
      throw new IOException(
          "keytool failed (exit "
              + process.exitValue()
              + ") making the benchmark certificate: "
              + output.strip());
    }
    return new BenchCertificate(store, password);
  }
}
