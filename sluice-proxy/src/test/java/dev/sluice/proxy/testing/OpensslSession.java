package dev.sluice.proxy.testing;

import dev.sluice.testing.Await;
import dev.sluice.testing.TestPki;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A client that saves its TLS session and offers it again, as a user checks resumption: {@code
 * openssl s_client -sess_out FILE}, then {@code -sess_in FILE}. Each connection sends a line, reads
 * its echo and waits for the end ({@code -ign_eof}), so that a TLS 1.3 ticket, which the server
 * sends after the handshake, is read and saved before the client exits.
 *
 * @param protocol {@code -tls1_3} or {@code -tls1_2}
 * @param tickets false adds {@code -no_ticket}: TLS 1.2 resumes by session ID, from the server's
 *     session cache, instead of by a ticket
 * @param serverName sent as SNI ({@code -servername})
 */
public record OpensslSession(Path file, String protocol, boolean tickets, String serverName) {

  /** A client asking for {@code localhost}. */
  public OpensslSession(Path file, String protocol, boolean tickets) {
    this(file, protocol, tickets, "localhost");
  }

  /** The same client (and saved session) asking for another name. */
  public OpensslSession withServerName(String name) {
    return new OpensslSession(file, protocol, tickets, name);
  }

  /** What one connection showed: whether it resumed, and over which protocol. */
  public record Outcome(boolean reused, String protocol, String output) {}

  private static final Pattern SUMMARY =
      Pattern.compile("^(New|Reused), (TLSv[0-9.]+), Cipher is", Pattern.MULTILINE);

  /** Connects with a fresh session, saving it to {@link #file}. */
  public Outcome first(InetSocketAddress address) throws Exception {
    Files.deleteIfExists(file);
    Outcome outcome = connect(address, List.of("-sess_out", file.toString()));
    if (!Files.exists(file) || Files.size(file) == 0) {
      throw new AssertionError("s_client saved no session:\n" + outcome.output());
    }
    return outcome;
  }

  /** Connects offering the saved session (and saving what the server sends back). */
  public Outcome again(InetSocketAddress address) throws Exception {
    return connect(address, List.of("-sess_in", file.toString(), "-sess_out", file.toString()));
  }

  /** The saved session as {@code openssl sess_id -text} prints it (a ticket's lifetime...). */
  public String describe() throws Exception {
    Process p =
        new ProcessBuilder("openssl", "sess_id", "-in", file.toString(), "-text", "-noout")
            .redirectErrorStream(true)
            .start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("openssl sess_id failed: " + text);
    }
    return text;
  }

  /**
   * Offers the saved session without a client certificate and without requiring success: what
   * s_client printed (and the echo of its line only if the proxy let it through).
   */
  public String attemptAgain(InetSocketAddress address) throws Exception {
    return run(address, List.of("-sess_in", file.toString())).output();
  }

  private Outcome connect(InetSocketAddress address, List<String> sessionArgs) throws Exception {
    Run run = run(address, sessionArgs);
    String output = run.output();
    Matcher summary = SUMMARY.matcher(output);
    if (run.exit() != 0 || !summary.find() || !output.contains("ping")) {
      throw new AssertionError(run.command() + " failed (exit " + run.exit() + "):\n" + output);
    }
    return new Outcome(summary.group(1).equals("Reused"), summary.group(2), output);
  }

  private record Run(List<String> command, int exit, String output) {}

  private Run run(InetSocketAddress address, List<String> sessionArgs) throws Exception {
    TestPki.requireTool("openssl", "version");
    List<String> command =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + address.getPort(),
                "-servername",
                serverName,
                "-CAfile",
                TestPki.get().caCert.toString(),
                "-verify_return_error",
                "-ign_eof",
                protocol));
    if (!tickets) {
      command.add("-no_ticket");
    }
    command.addAll(sessionArgs);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write("ping\n".getBytes(StandardCharsets.UTF_8));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Thread reader =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    p.getInputStream().transferTo(out);
                  } catch (IOException ended) {
                    // the process is gone
                  }
                });
    if (!p.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish: " + out);
    }
    reader.join();
    return new Run(command, p.exitValue(), out.toString(StandardCharsets.UTF_8));
  }

  /**
   * An upstream that answers each connection's first line with itself and closes: the proxy then
   * closes the client's side, which ends {@code s_client -ign_eof}.
   */
  public static final class LineEcho implements AutoCloseable {
    private final ServerSocket server;

    public LineEcho() throws IOException {
      server = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
      Thread.ofVirtual().start(this::acceptAll);
    }

    /** {@code 127.0.0.1:PORT}, for a cluster's address. */
    public String address() {
      return "127.0.0.1:" + server.getLocalPort();
    }

    private void acceptAll() {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          Thread.ofVirtual().start(() -> answer(socket));
        } catch (IOException closed) {
          return;
        }
      }
    }

    private static void answer(Socket socket) {
      try (socket) {
        socket.setSoTimeout((int) Await.PATIENCE.toMillis());
        var in = socket.getInputStream();
        var line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0) {
          line.write(b);
          if (b == '\n') {
            break;
          }
        }
        socket.getOutputStream().write(line.toByteArray());
      } catch (IOException ended) {
        // the client went away first
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }
}
