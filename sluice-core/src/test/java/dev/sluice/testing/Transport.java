package dev.sluice.testing;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** The socket families a test runs over; use with {@code @EnumSource(Transport.class)}. */
public enum Transport {
  /** TCP on the loopback interface, on a port the kernel picks. */
  TCP {
    @Override
    public SocketAddress bindAddress(Path dir) {
      return new InetSocketAddress("127.0.0.1", 0);
    }
  },
  /** A Unix-domain stream socket, its file in the given (temporary) directory. */
  UNIX {
    @Override
    public SocketAddress bindAddress(Path dir) {
      return UnixDomainSocketAddress.of(
          dir.resolve("s" + SOCKET_FILES.incrementAndGet() + ".sock"));
    }
  };

  private static final AtomicInteger SOCKET_FILES = new AtomicInteger();

  /** An address to listen on; {@code dir} (a {@code @TempDir}) holds Unix socket files. */
  public abstract SocketAddress bindAddress(Path dir);
}
