package dev.sluice.bench.workload.tlsidle;

import dev.sluice.bench.child.MeasuredAddress;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The tlsidle peer, the same in every arm: blocking JDK sockets ({@code SSLSocket} for TLS) that
 * connect to the measured echo server, each exchange one message (write it, read the echo, verify
 * it against the pattern) and then stay open and silent. A few connector threads open them; an idle
 * connection needs no thread.
 */
final class IdleClients implements ChildProgram {
  private static final int CONNECTOR_THREADS = 4;

  @Override
  public void run(ChildControl control) throws Exception {
    Params params = control.params();
    Transport transport = Transport.parse(params.string(Transport.OPTION));
    BenchTls tls = transport == Transport.TLS ? BenchTls.from(params) : null;
    InetSocketAddress server = MeasuredAddress.of(params);
    int exchange = params.intBytes(TlsIdleWorkload.EXCHANGE);
    Corruption corruption = Corruption.from(params);

    int warm = churn(tls, server, params.intCount(TlsIdleWorkload.WARMUP), exchange);
    control.send("WARM", "connections", warm);
    control.await("GO");
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    List<Socket> idle =
        open(
            tls,
            server,
            params.intCount(TlsIdleWorkload.CONNECTIONS),
            exchange,
            (socket, index) -> verifyEcho(socket, index, exchange, corruption, failures));
    long nanos = System.nanoTime() - start;
    control.send(
        "CONNECTED",
        "connections",
        idle.size(),
        "nanos",
        nanos,
        "integrity",
        failures.isEmpty() ? "OK" : "FAIL",
        "integrityDetail",
        failures.isEmpty() ? "" : failures.getFirst() + " (" + failures.size() + " connections)");
    control.await("EXIT");
    for (Socket socket : idle) {
      socket.close();
    }
  }

  /** What a connection does after its write: read the echo and check it. */
  @FunctionalInterface
  private interface EchoCheck {
    void check(Socket socket, int index) throws IOException;
  }

  /**
   * Opens {@code count} connections, each writing {@code exchange} pattern bytes and reading them.
   */
  private static List<Socket> open(
      BenchTls tls, InetSocketAddress server, int count, int exchange, EchoCheck check)
      throws Exception {
    ExecutorService connectors = Executors.newFixedThreadPool(CONNECTOR_THREADS);
    try {
      List<Future<Socket>> opened = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int index = i;
        opened.add(
            connectors.submit(
                () -> {
                  Socket socket = connect(tls, server);
                  byte[] message = PayloadPattern.DEFAULT.bytes(0, exchange);
                  socket.getOutputStream().write(message);
                  socket.getOutputStream().flush();
                  check.check(socket, index);
                  return socket;
                }));
      }
      List<Socket> sockets = new ArrayList<>(count);
      for (Future<Socket> socket : opened) {
        sockets.add(socket.get());
      }
      return sockets;
    } finally {
      connectors.shutdownNow();
    }
  }

  /**
   * Opens {@code count} connections, each writing {@code exchange} pattern bytes, reading the echo
   * and closing, with at most one open per connector thread: the server runs its accept, handshake,
   * echo and close code {@code count} times while holding only a few connections at once. Returns
   * how many ran.
   */
  private static int churn(BenchTls tls, InetSocketAddress server, int count, int exchange)
      throws Exception {
    ExecutorService connectors = Executors.newFixedThreadPool(CONNECTOR_THREADS);
    try {
      List<Future<?>> done = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        done.add(
            connectors.submit(
                () -> {
                  try (Socket socket = connect(tls, server)) {
                    byte[] message = PayloadPattern.DEFAULT.bytes(0, exchange);
                    socket.getOutputStream().write(message);
                    socket.getOutputStream().flush();
                    new DataInputStream(socket.getInputStream()).readFully(message);
                  }
                  return null;
                }));
      }
      for (Future<?> connection : done) {
        connection.get();
      }
      return done.size();
    } finally {
      connectors.shutdownNow();
    }
  }

  private static Socket connect(BenchTls tls, InetSocketAddress server) throws IOException {
    if (tls != null) {
      return tls.peerConnect(server);
    }
    Socket socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(server);
    return socket;
  }

  private static void verifyEcho(
      Socket socket, int index, int exchange, Corruption corruption, List<String> failures)
      throws IOException {
    byte[] echo = new byte[exchange];
    new DataInputStream(socket.getInputStream()).readFully(echo);
    ByteBuffer received = ByteBuffer.wrap(echo);
    corruption.apply(received, 0);
    PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();
    verifier.update(received);
    if (!verifier.ok()) {
      failures.add("connection " + index + ": " + verifier.failure());
    }
  }
}
