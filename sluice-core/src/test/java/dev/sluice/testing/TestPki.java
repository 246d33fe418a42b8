package dev.sluice.testing;

import dev.sluice.tls.KeyMaterial;
import dev.sluice.tls.KeyMaterialException;
import dev.sluice.tls.TrustMaterial;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Certificates and keys generated when the tests start, with the real tools (openssl; keytool for
 * the expired and not-yet-valid ones, which openssl 3.0's x509 cannot backdate). One set per test
 * JVM, in a temporary directory removed at exit.
 */
public final class TestPki {
  public static final char[] PASSWORD = "sluice-secret".toCharArray();

  public final Path dir;

  /** The test CA every trusted certificate chains to. */
  public final Path caCert;

  /** A CA nobody trusts. */
  public final Path rogueCaCert;

  /** RSA server certificate for localhost and 127.0.0.1; PKCS#8 key. */
  public final Path serverCert;

  public final Path serverKey;

  /** The same key as PKCS#1 ("RSA PRIVATE KEY"). */
  public final Path serverKeyPkcs1;

  /** The same key as encrypted PKCS#8, password {@link #PASSWORD}. */
  public final Path serverKeyEncrypted;

  /** The server certificate, key and CA as PKCS#12, password {@link #PASSWORD}. */
  public final Path serverP12;

  /** EC server certificate for other.test and *.wild.test; SEC1 key ("EC PRIVATE KEY"). */
  public final Path otherCert;

  public final Path otherKey;

  /** A client certificate signed by the test CA. */
  public final Path clientCert;

  public final Path clientKey;

  /** A client certificate signed by the rogue CA. */
  public final Path rogueClientCert;

  public final Path rogueClientKey;

  /** A client certificate signed by the test CA that expired five days ago (with its key). */
  public final Path expiredClientCert;

  public final Path expiredClientP12;

  /** A self-signed certificate valid only from tomorrow on, in PKCS#12. */
  public final Path notYetValidP12;

  /** A trust store (PKCS#12, keytool trustedCertEntry) holding the test CA. */
  public final Path caTrustP12;

  private static TestPki instance;

  /** The process-wide PKI, generated on first use. */
  public static synchronized TestPki get() {
    if (instance == null) {
      try {
        Path dir = Files.createTempDirectory("sluice-test-pki");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
        instance = new TestPki(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return instance;
  }

  private TestPki(Path dir) throws IOException {
    this.dir = dir;
    requireTool("openssl", "version");
    String pass = new String(PASSWORD);

    caCert = dir.resolve("ca.pem");
    Path caKey = dir.resolve("ca.key");
    selfSignedCa(caKey, caCert, "Sluice Test CA");
    rogueCaCert = dir.resolve("rogue-ca.pem");
    Path rogueCaKey = dir.resolve("rogue-ca.key");
    selfSignedCa(rogueCaKey, rogueCaCert, "Rogue CA");

    serverKey = dir.resolve("server.key");
    serverCert = dir.resolve("server.pem");
    openssl("genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", serverKey);
    issue(
        serverKey,
        serverCert,
        "localhost",
        caCert,
        caKey,
        "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    serverKeyPkcs1 = dir.resolve("server-pkcs1.key");
    openssl("rsa", "-in", serverKey, "-traditional", "-out", serverKeyPkcs1);
    serverKeyEncrypted = dir.resolve("server-encrypted.key");
    openssl(
        "pkcs8",
        "-topk8",
        "-in",
        serverKey,
        "-v2",
        "aes-256-cbc",
        "-passout",
        "pass:" + pass,
        "-out",
        serverKeyEncrypted);
    serverP12 = dir.resolve("server.p12");
    openssl(
        "pkcs12",
        "-export",
        "-in",
        serverCert,
        "-inkey",
        serverKey,
        "-certfile",
        caCert,
        "-name",
        "server",
        "-passout",
        "pass:" + pass,
        "-out",
        serverP12);

    otherKey = dir.resolve("other.key");
    otherCert = dir.resolve("other.pem");
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", otherKey);
    issue(
        otherKey,
        otherCert,
        "other.test",
        caCert,
        caKey,
        "subjectAltName=DNS:other.test,DNS:*.wild.test\nextendedKeyUsage=serverAuth\n");

    clientKey = dir.resolve("client.key");
    clientCert = dir.resolve("client.pem");
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", clientKey);
    issue(clientKey, clientCert, "test-client", caCert, caKey, "extendedKeyUsage=clientAuth\n");
    rogueClientKey = dir.resolve("rogue-client.key");
    rogueClientCert = dir.resolve("rogue-client.pem");
    openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", rogueClientKey);
    issue(
        rogueClientKey,
        rogueClientCert,
        "rogue-client",
        rogueCaCert,
        rogueCaKey,
        "extendedKeyUsage=clientAuth\n");

    // keytool can backdate; it signs with the CA from a PKCS#12 store.
    Path caP12 = dir.resolve("ca.p12");
    openssl(
        "pkcs12",
        "-export",
        "-in",
        caCert,
        "-inkey",
        caKey,
        "-name",
        "ca",
        "-passout",
        "pass:" + pass,
        "-out",
        caP12);
    expiredClientP12 = dir.resolve("expired-client.p12");
    keytool(
        "-genkeypair",
        "-keystore",
        expiredClientP12,
        "-storetype",
        "PKCS12",
        "-storepass",
        pass,
        "-alias",
        "client",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=expired-client");
    Path expiredCsr = dir.resolve("expired-client.csr");
    keytool(
        "-certreq",
        "-keystore",
        expiredClientP12,
        "-storepass",
        pass,
        "-alias",
        "client",
        "-file",
        expiredCsr);
    expiredClientCert = dir.resolve("expired-client.pem");
    keytool(
        "-gencert",
        "-keystore",
        caP12,
        "-storepass",
        pass,
        "-alias",
        "ca",
        "-infile",
        expiredCsr,
        "-outfile",
        expiredClientCert,
        "-rfc",
        "-startdate",
        "-10d",
        "-validity",
        "5",
        "-ext",
        "EKU=clientAuth");
    notYetValidP12 = dir.resolve("not-yet-valid.p12");
    keytool(
        "-genkeypair",
        "-keystore",
        notYetValidP12,
        "-storetype",
        "PKCS12",
        "-storepass",
        pass,
        "-alias",
        "future",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=not-yet-valid",
        "-startdate",
        "+1d",
        "-validity",
        "30");
    caTrustP12 = dir.resolve("ca-trust.p12");
    keytool(
        "-importcert",
        "-noprompt",
        "-keystore",
        caTrustP12,
        "-storetype",
        "PKCS12",
        "-storepass",
        pass,
        "-alias",
        "ca",
        "-file",
        caCert);
  }

  /** The server's key material (RSA, localhost). */
  public KeyMaterial serverKeyMaterial() throws KeyMaterialException {
    return KeyMaterial.fromPem(serverCert, serverKey);
  }

  /** Trusting the test CA. */
  public TrustMaterial caTrust() throws KeyMaterialException {
    return TrustMaterial.fromPem(caCert);
  }

  /** A file with the given text, for malformed-input tests. */
  public Path write(String name, String text) throws IOException {
    return Files.writeString(dir.resolve(name), text, StandardCharsets.US_ASCII);
  }

  private void selfSignedCa(Path key, Path cert, String name) throws IOException {
    openssl(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "3650",
        "-subj",
        "/CN=" + name,
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign");
  }

  private void issue(Path key, Path cert, String cn, Path ca, Path caKey, String extensions)
      throws IOException {
    Path csr = dir.resolve(cn + ".csr");
    Path ext = dir.resolve(cn + ".ext");
    Files.writeString(ext, extensions, StandardCharsets.US_ASCII);
    openssl("req", "-new", "-key", key, "-subj", "/CN=" + cn, "-out", csr);
    openssl(
        "x509",
        "-req",
        "-in",
        csr,
        "-CA",
        ca,
        "-CAkey",
        caKey,
        "-CAcreateserial",
        "-days",
        "365",
        "-extfile",
        ext,
        "-out",
        cert);
  }

  private void openssl(Object... args) throws IOException {
    run("openssl", args);
  }

  private void keytool(Object... args) throws IOException {
    String javaHome = System.getProperty("java.home");
    run(Path.of(javaHome, "bin", "keytool").toString(), args);
  }

  private void run(String tool, Object... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(tool);
    for (Object arg : args) {
      command.add(arg.toString());
    }
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IOException(String.join(" ", command) + " failed:\n" + output);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** Fails with a clear message when a tool the TLS tests need is missing. */
  public static void requireTool(String tool, String... args) {
    List<String> command = new ArrayList<>(List.of(tool));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException(tool + " did not answer");
      }
    } catch (IOException e) {
      throw new IllegalStateException(
          "the TLS tests need '" + tool + "' on PATH (Debian package: " + tool + ")", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort at exit
    }
  }
}
