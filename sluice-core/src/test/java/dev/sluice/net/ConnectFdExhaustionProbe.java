package dev.sluice.net;

import dev.sluice.testing.ChildJvm;
import dev.sluice.testing.RecordingHandler;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The child side of {@link NativeFaultsTest}'s connect under EMFILE: it exhausts the process's
 * descriptors, connects (which must fail its future, naming the reason), frees them, and connects
 * again (which must work).
 */
public final class ConnectFdExhaustionProbe {
  private ConnectFdExhaustionProbe() {}

  public static void main(String[] args) throws Exception {
    Path hogFile = Files.createFile(Path.of(args[0]).resolve("hog"));
    try (ServerSocket upstream =
            new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
        EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(1))) {
      InetSocketAddress address =
          new InetSocketAddress(upstream.getInetAddress(), upstream.getLocalPort());
      List<FileChannel> hogs = new ArrayList<>(25_000);
      ChildJvm.report("start", "ok"); // loads what reporting needs while descriptors are free
      // One connect first, so that the classes of the connect path are loaded: loading a class
      // from the class path needs a descriptor.
      group
          .connect(address, SocketOptions.defaults(), new RecordingHandler())
          .get(20, TimeUnit.SECONDS)
          .close();
      upstream.accept().close();
      try {
        throw new ExecutionException(new java.net.ConnectException("loaded"));
      } catch (ExecutionException loaded) {
        // the failure path's classes, loaded
      }
      String exhaustion;
      String connectFailure;
      try {
        exhaustion = exhaust(hogFile, hogs);
        try {
          group
              .connect(address, SocketOptions.defaults(), new RecordingHandler())
              .get(20, TimeUnit.SECONDS)
              .close();
          connectFailure = "none";
        } catch (ExecutionException e) {
          connectFailure =
              e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage();
        }
      } finally {
        for (FileChannel hog : hogs) {
          hog.close();
        }
      }
      ChildJvm.report("exhaustion", exhaustion);
      ChildJvm.report("connectFailure", connectFailure);
      RecordingHandler client = new RecordingHandler();
      Connection connection =
          group.connect(address, SocketOptions.defaults(), client).get(20, TimeUnit.SECONDS);
      try (Socket accepted = upstream.accept()) {
        accepted.getOutputStream().write("pong".getBytes());
        client.expect(4).get(20, TimeUnit.SECONDS);
        ChildJvm.report("echoAfter", client.text().equals("pong"));
      }
      connection.close();
    }
  }

  private static String exhaust(Path file, List<FileChannel> hogs) {
    while (true) {
      try {
        hogs.add(FileChannel.open(file, StandardOpenOption.READ));
      } catch (IOException e) {
        return String.valueOf(e.getMessage());
      }
    }
  }
}
