package dev.sluice.proxy.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code openssl s_client} once against a listener and returns what it printed. */
public final class SClient {
  private SClient() {}

  /** Connects as {@code localhost}, handshakes, closes; {@code extra} are more s_client options. */
  public static String run(SocketAddress address, String... extra)
      throws IOException, InterruptedException {
    int port = ((InetSocketAddress) address).getPort();
    List<String> command =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + port,
                "-servername",
                "localhost"));
    command.addAll(List.of(extra));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close(); // no input: s_client handshakes, prints, and ends
    String output = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("s_client did not finish: " + output);
    }
    return output;
  }
}
