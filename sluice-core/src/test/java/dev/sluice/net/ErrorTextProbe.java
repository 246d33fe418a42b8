package dev.sluice.net;

import dev.sluice.testing.ChildJvm;
import dev.sluice.testing.RecordingHandler;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link ErrorTextTest} in a child JVM whose environment asks for translated C library
 * texts: reports the C library's own text for ECONNRESET, and what a refused connect and a peer's
 * reset look like to the transport's callers.
 */
@SuppressWarnings("restricted")
public final class ErrorTextProbe {
  private ErrorTextProbe() {}

  public static void main(String[] args) throws Throwable {
    Linker linker = Linker.nativeLinker();
    MethodHandle strerror =
        linker.downcallHandle(
            linker.defaultLookup().find("strerror").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    MemorySegment text = (MemorySegment) strerror.invokeExact(Libc.ECONNRESET);
    ChildJvm.report("cText", text.reinterpret(256).getString(0));

    InetAddress loopback = InetAddress.getLoopbackAddress();
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      ChildJvm.report("transport", group.transport());
      int closedPort;
      try (ServerSocket unused = new ServerSocket(0, 1, loopback)) {
        closedPort = unused.getLocalPort();
      }
      try {
        group
            .connect(
                new InetSocketAddress(loopback, closedPort),
                SocketOptions.defaults(),
                new RecordingHandler())
            .get(10, TimeUnit.SECONDS);
        ChildJvm.report("refused", "connected");
      } catch (java.util.concurrent.ExecutionException e) {
        ChildJvm.report("refused", e.getCause().getMessage());
      }

      try (ServerSocket server = new ServerSocket(0, 1, loopback)) {
        CompletableFuture<CloseReason> closed = new CompletableFuture<>();
        RecordingHandler client =
            new RecordingHandler() {
              @Override
              public void onClose(Connection connection, CloseReason reason) {
                closed.complete(reason);
              }
            };
        group
            .connect(server.getLocalSocketAddress(), SocketOptions.defaults(), client)
            .get(10, TimeUnit.SECONDS);
        try (Socket accepted = server.accept()) {
          accepted.setSoLinger(true, 0); // its close resets
        }
        CloseReason reason = closed.get(10, TimeUnit.SECONDS);
        ChildJvm.report("reset", reason.getClass().getSimpleName() + ": " + reason);
      }
    }
  }
}
