// The AOT cache's training run, at package time (run by `assemble` with the build's JDK as a
// single-file program): starts the staged archive's proxy with -XX:AOTCacheOutput, drives the work
// a proxy does in its first seconds (plain and TLS connections echoed through it, the admin pages
// scraped, a drain), and stops it with SIGTERM, at which the JVM writes the cache.
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

public class Train {
  public static void main(String[] args) throws Exception {
    Path home = Path.of(args[0]);
    Path aot = Path.of(args[1]);
    Path work = Files.createDirectories(Path.of(args[2]));
    try (ServerSocket echo = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
      Thread.ofPlatform().daemon().start(() -> serveEcho(echo));
      int plain = freePort();
      int tls = freePort();
      int admin = freePort();
      Path p12 = work.resolve("train.p12");
      Files.deleteIfExists(p12);
      run(home.resolve("runtime/bin/keytool").toString(), "-genkeypair", "-alias", "train",
          "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
          "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", p12.toString(),
          "-storetype", "PKCS12", "-storepass", "training", "-keypass", "training");
      Path config = work.resolve("train.yaml");
      Files.writeString(config, """
          listeners:
            - {name: plain, address: 127.0.0.1:%d, cluster: echo}
            - name: tls
              address: 127.0.0.1:%d
              cluster: echo
              tls: {certificates: [{p12: train.p12, password: training}]}
          clusters:
            - {name: echo, upstreams: [{address: 127.0.0.1:%d}]}
          timeouts: {drain: 1s}
          admin: {address: 127.0.0.1:%d}
          accessLog: {path: access.log}
          """.formatted(plain, tls, echo.getLocalPort(), admin));

      List<String> command = new ArrayList<>();
      command.add(home.resolve("runtime/bin/java").toString());
      for (String line : Files.readAllLines(home.resolve("conf/jvm.options"))) {
        String flag = line.replaceFirst("#.*", "").strip();
        if (!flag.isEmpty()) {
          command.add(flag);
        }
      }
      command.add("-XX:AOTCacheOutput=" + aot);
      command.add("-cp");
      command.add(String.join(":", Files.readAllLines(home.resolve("lib/classpath")).stream()
          .filter(jar -> !jar.isBlank()).map(jar -> home.resolve("lib").resolve(jar).toString())
          .toList()));
      command.addAll(List.of("dev.sluice.proxy.cli.Main", "run", "--config", config.toString()));
      Process proxy = new ProcessBuilder(command).directory(work.toFile())
          .redirectErrorStream(true).redirectOutput(work.resolve("proxy.log").toFile()).start();
      try {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        awaitReady(http, admin, proxy);
        SSLContext trusting = trusting(p12);
        for (int round = 0; round < 3; round++) {
          for (int i = 0; i < 100; i++) {
            echoOnce(new Socket("127.0.0.1", plain), i);
          }
          for (int i = 0; i < 20; i++) {
            SSLSocket socket = (SSLSocket) trusting.getSocketFactory().createSocket("127.0.0.1", tls);
            if (i % 2 == 0) {
              socket.setEnabledProtocols(new String[] {"TLSv1.2"});
            }
            echoOnce(socket, i);
          }
          for (String page : List.of("/", "/metrics", "/metrics.json", "/ready", "/live", "/dump")) {
            http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + page)).build(),
                HttpResponse.BodyHandlers.discarding());
          }
        }
      } finally {
        proxy.destroy(); // SIGTERM: the proxy drains, the JVM exits and writes the cache
        if (!proxy.waitFor(120, TimeUnit.SECONDS)) {
          proxy.destroyForcibly();
          throw new IllegalStateException("the training proxy did not stop on SIGTERM");
        }
      }
      if (!Files.isRegularFile(aot) || Files.size(aot) == 0) {
        throw new IllegalStateException("the training run wrote no AOT cache; see "
            + work.resolve("proxy.log"));
      }
    }
  }

  private static void echoOnce(Socket socket, int i) throws IOException {
    try (socket) {
      socket.setSoTimeout(10_000);
      byte[] sent = ("training " + i + " ").repeat(1 + i % 50).getBytes();
      socket.getOutputStream().write(sent);
      byte[] back = socket.getInputStream().readNBytes(sent.length);
      if (!Arrays.equals(sent, back)) {
        throw new IOException("the training echo came back different");
      }
    }
  }

  private static void awaitReady(HttpClient http, int admin, Process proxy) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline && proxy.isAlive()) {
      try {
        var ready = http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin + "/ready")).build(),
            HttpResponse.BodyHandlers.discarding());
        if (ready.statusCode() == 200) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("the training proxy never became ready");
  }

  private static SSLContext trusting(Path p12) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      store.load(in, "training".toCharArray());
    }
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("train", (X509Certificate) store.getCertificate("train"));
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context;
  }

  private static void serveEcho(ServerSocket server) {
    while (true) {
      try {
        Socket client = server.accept();
        Thread.ofPlatform().daemon().start(() -> {
          try (client; InputStream in = client.getInputStream();
              OutputStream out = client.getOutputStream()) {
            in.transferTo(out);
          } catch (IOException ignored) {
            // the proxy closed the pair
          }
        });
      } catch (IOException closed) {
        return;
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket probe = new ServerSocket()) {
      probe.bind(new InetSocketAddress("127.0.0.1", 0));
      return probe.getLocalPort();
    }
  }

  private static void run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
    }
  }
}
