package dev.sluice.bench.workload.tlsthroughput;

import dev.sluice.bench.child.MeasuredAddress;
import dev.sluice.bench.harness.ChildControl;
import dev.sluice.bench.harness.ChildProgram;
import dev.sluice.bench.harness.Params;
import dev.sluice.bench.integrity.Corruption;
import dev.sluice.bench.tls.BenchTls;
import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLSocket;

/**
 * The tlsthroughput peer, the same in every arm: a blocking JDK {@code SSLSocket} client that
 * connects to the measured server, asks for a number of bytes, and verifies every byte against the
 * pattern as it reads, until the server's close_notify. First a warm-up transfer (reported as
 * {@code WARM}), then, on GO, the measured one ({@code RECEIVED}, timed from the request to the end
 * of the stream).
 */
final class VerifyingTlsReceiver implements ChildProgram {
  private static final int READ_BUFFER = 64 * 1024;

  /** One transfer's outcome, as the peer saw it. */
  private record Transfer(long bytes, long nanos, PatternVerifier verifier) {}

  @Override
  public void run(ChildControl control) throws Exception {
    Params params = control.params();
    BenchTls tls = BenchTls.from(params);
    InetSocketAddress server = MeasuredAddress.of(params);
    Corruption corruption = Corruption.from(params);

    Transfer warm =
        transfer(tls, server, params.count(TlsThroughputWorkload.WARMUP_MIB) << 20, corruption);
    control.send("WARM", verdict(warm));
    control.await("GO");
    Transfer run = transfer(tls, server, params.count(TlsThroughputWorkload.MIB) << 20, corruption);
    control.send("RECEIVED", verdict(run));
    control.await("EXIT");
  }

  private static Transfer transfer(
      BenchTls tls, InetSocketAddress server, long bytes, Corruption corruption)
      throws IOException {
    try (SSLSocket socket = tls.peerConnect(server)) {
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[READ_BUFFER];
      PatternVerifier verifier = PayloadPattern.DEFAULT.verifier();
      long start = System.nanoTime();
      out.writeLong(bytes);
      out.flush();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        ByteBuffer piece = ByteBuffer.wrap(buffer, 0, n);
        corruption.apply(piece, verifier.offset());
        verifier.update(piece);
      }
      long nanos = System.nanoTime() - start;
      long received = verifier.offset();
      verifier.finish(bytes);
      return new Transfer(received, nanos, verifier);
    }
  }

  private static Object[] verdict(Transfer transfer) {
    return new Object[] {
      "bytes",
      transfer.bytes(),
      "nanos",
      transfer.nanos(),
      "integrity",
      transfer.verifier().ok() ? "OK" : "FAIL",
      "integrityDetail",
      transfer.verifier().ok() ? "" : transfer.verifier().failure()
    };
  }
}
