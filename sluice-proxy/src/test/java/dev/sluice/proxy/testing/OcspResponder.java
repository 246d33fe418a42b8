package dev.sluice.proxy.testing;

import dev.sluice.testing.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority with a real OCSP responder ({@code openssl ocsp}) on loopback: a CA, a
 * responder certificate it signed, and server certificates for localhost whose authority
 * information access names the responder, one good and one revoked in the responder's index, and
 * two for other names (alpha.test good, beta.test revoked) for a listener choosing by SNI.
 * Certificate files hold the server's certificate followed by the CA's (stapling needs the issuer).
 * {@link #stop} takes the responder down; the certificates still name it.
 */
public final class OcspResponder implements AutoCloseable {
  public final Path dir;
  public final int port;
  public final Path caCert;
  public final Path goodChain;
  public final Path goodKey;
  public final Path revokedChain;
  public final Path revokedKey;

  /** A certificate naming a responder that never answers (a port nothing listens on). */
  public final Path unansweredChain;

  public final Path unansweredKey;

  /** A good certificate for alpha.test (serial 04). */
  public final Path alphaChain;

  public final Path alphaKey;

  /** A revoked certificate for beta.test (serial 05). */
  public final Path betaChain;

  public final Path betaKey;

  private final int validMinutes;
  private final java.util.Set<String> revoked = new java.util.TreeSet<>(List.of("02", "05"));
  private Process responder;

  private OcspResponder(Path dir, int port, int validMinutes)
      throws IOException, InterruptedException {
    this.dir = dir;
    this.port = port;
    this.validMinutes = validMinutes;
    caCert = dir.resolve("ca.pem");
    openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "30",
        "-subj",
        "/CN=Sluice OCSP test CA",
        "-addext",
        "basicConstraints=critical,CA:true",
        "-addext",
        "keyUsage=keyCertSign,cRLSign");
    issue("responder", "/CN=Sluice OCSP responder", "extendedKeyUsage=OCSPSigning", null);
    int unused = freePort();
    goodChain = issue("good", "/CN=localhost", serverExtensions(port), "01");
    revokedChain = issue("revoked", "/CN=localhost", serverExtensions(port), "02");
    unansweredChain = issue("unanswered", "/CN=localhost", serverExtensions(unused), "03");
    alphaChain = issue("alpha", "/CN=alpha.test", extensions("alpha.test", port), "04");
    betaChain = issue("beta", "/CN=beta.test", extensions("beta.test", port), "05");
    goodKey = dir.resolve("good.key");
    revokedKey = dir.resolve("revoked.key");
    unansweredKey = dir.resolve("unanswered.key");
    alphaKey = dir.resolve("alpha.key");
    betaKey = dir.resolve("beta.key");
    writeIndex();
  }

  /** The responder's index: serials 01, 02, 04, 05, those in {@link #revoked} revoked. */
  private void writeIndex() throws IOException {
    String expiry =
        ZonedDateTime.now(ZoneOffset.UTC)
            .plusDays(30)
            .format(DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'"));
    String revokedAt =
        ZonedDateTime.now(ZoneOffset.UTC)
            .minusHours(1)
            .format(DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'"));
    StringBuilder index = new StringBuilder();
    for (String[] entry :
        new String[][] {
          {"01", "/CN=localhost"},
          {"02", "/CN=localhost"},
          {"04", "/CN=alpha.test"},
          {"05", "/CN=beta.test"}
        }) {
      boolean isRevoked = revoked.contains(entry[0]);
      index
          .append(isRevoked ? "R\t" : "V\t")
          .append(expiry)
          .append('\t')
          .append(isRevoked ? revokedAt : "")
          .append('\t')
          .append(entry[0])
          .append("\tunknown\t")
          .append(entry[1])
          .append('\n');
    }
    Files.writeString(dir.resolve("index.txt"), index);
  }

  /** Makes the PKI in {@code dir} and starts the responder (responses valid 5 minutes). */
  public static OcspResponder start(Path dir) throws Exception {
    return start(dir, 5);
  }

  /**
   * Makes the PKI in {@code dir} and starts the responder, its responses valid {@code validMinutes}
   * (Sluice asks again halfway there).
   */
  public static OcspResponder start(Path dir, int validMinutes) throws Exception {
    OcspResponder pki = new OcspResponder(dir, freePort(), validMinutes);
    pki.startResponder();
    return pki;
  }

  /**
   * Revokes the certificate with {@code serial} (two hex digits) from the next answer on: the
   * responder reads its index when it starts, so it is restarted.
   */
  public void revoke(String serial) throws IOException, InterruptedException {
    stop();
    revoked.add(serial);
    writeIndex();
    startResponder();
  }

  /** Starts the responder (again). */
  public void startResponder() throws IOException, InterruptedException {
    responder =
        new ProcessBuilder(
                "openssl",
                "ocsp",
                "-index",
                "index.txt",
                "-port",
                String.valueOf(port),
                "-rsigner",
                "responder.pem",
                "-rkey",
                "responder.key",
                "-CA",
                "ca.pem",
                "-nmin",
                String.valueOf(validMinutes))
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("responder.log").toFile())
            .start();
    // Ready once it says so: a probe connection that sends nothing would hang openssl 3.0's
    // responder, which serves one connection at a time.
    Path log = dir.resolve("responder.log");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!(Files.exists(log) && Files.readString(log).contains("waiting for OCSP client"))) {
      if (!responder.isAlive() || System.nanoTime() > deadline) {
        throw new IOException("openssl ocsp did not start: " + Files.readString(log));
      }
      Thread.sleep(50);
    }
  }

  /** Takes the responder down. */
  public void stop() throws InterruptedException {
    if (responder != null) {
      responder.destroy();
      responder.waitFor(10, TimeUnit.SECONDS);
      responder = null;
    }
  }

  @Override
  public void close() {
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static String serverExtensions(int responderPort) {
    return "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
        + "authorityInfoAccess=OCSP;URI:http://127.0.0.1:"
        + responderPort
        + "\n";
  }

  private static String extensions(String dnsName, int responderPort) {
    return "subjectAltName=DNS:"
        + dnsName
        + "\nauthorityInfoAccess=OCSP;URI:http://127.0.0.1:"
        + responderPort
        + "\n";
  }

  /** Signs {@code name}.pem (with the CA after it, for servers) and {@code name}.key. */
  private Path issue(String name, String subject, String extensions, String serial)
      throws IOException, InterruptedException {
    openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr",
        "-subj",
        subject);
    Files.writeString(dir.resolve(name + ".ext"), extensions.replace(", ", "\n") + "\n");
    List<String> args =
        new ArrayList<>(
            List.of(
                "x509",
                "-req",
                "-in",
                name + ".csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-days",
                "30",
                "-extfile",
                name + ".ext",
                "-out",
                name + ".pem"));
    if (serial != null) {
      args.addAll(List.of("-set_serial", "0x" + serial));
    } else {
      args.add("-CAcreateserial");
    }
    openssl(args.toArray(String[]::new));
    if (serial == null) {
      return dir.resolve(name + ".pem");
    }
    Path chain = dir.resolve(name + "-chain.pem");
    Files.writeString(
        chain, Files.readString(dir.resolve(name + ".pem")) + Files.readString(caCert));
    return chain;
  }

  private void openssl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + output);
    }
  }

  private static int freePort() throws IOException {
    return FreePorts.loopback();
  }
}
