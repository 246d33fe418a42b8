package dev.sluice.proxy.testing;

import dev.sluice.testing.Await;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A Unix datagram socket standing in for systemd's notification socket: bound through libc (the JDK
 * has no Unix datagram channel), it receives what a process sends to {@code $NOTIFY_SOCKET}.
 */
public final class NotifyReceiver implements AutoCloseable {
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int SOCK_CLOEXEC = 0x80000;
  private static final short POLLIN = 1;
  private static final Linker LINKER = Linker.nativeLinker();
  private static final MethodHandle SOCKET =
      handle(
          "socket",
          ValueLayout.JAVA_INT,
          ValueLayout.JAVA_INT,
          ValueLayout.JAVA_INT,
          ValueLayout.JAVA_INT);
  private static final MethodHandle BIND =
      handle(
          "bind",
          ValueLayout.JAVA_INT,
          ValueLayout.JAVA_INT,
          ValueLayout.ADDRESS,
          ValueLayout.JAVA_INT);
  private static final MethodHandle POLL =
      handle(
          "poll",
          ValueLayout.JAVA_INT,
          ValueLayout.ADDRESS,
          ValueLayout.JAVA_LONG,
          ValueLayout.JAVA_INT);
  private static final MethodHandle RECV =
      handle(
          "recv",
          ValueLayout.JAVA_LONG,
          ValueLayout.JAVA_INT,
          ValueLayout.ADDRESS,
          ValueLayout.JAVA_LONG,
          ValueLayout.JAVA_INT);
  private static final MethodHandle CLOSE =
      handle("close", ValueLayout.JAVA_INT, ValueLayout.JAVA_INT);

  private final String address;
  private final int fd;
  private final Arena arena = Arena.ofShared();
  private final MemorySegment buffer = arena.allocate(65536);

  private NotifyReceiver(String address, int fd) {
    this.address = address;
    this.fd = fd;
  }

  /** Binds a socket file at {@code path}. */
  public static NotifyReceiver bind(Path path) throws IOException {
    return bind(path.toString());
  }

  /** Binds the abstract name {@code @name}. */
  public static NotifyReceiver bindAbstract(String name) throws IOException {
    return bind("@" + name);
  }

  private static NotifyReceiver bind(String address) throws IOException {
    byte[] name = address.getBytes(StandardCharsets.UTF_8);
    boolean isAbstract = address.startsWith("@");
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment sockaddr = arena.allocate(110, 2);
      sockaddr.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
      MemorySegment.copy(name, 0, sockaddr, ValueLayout.JAVA_BYTE, 2, name.length);
      if (isAbstract) {
        sockaddr.set(ValueLayout.JAVA_BYTE, 2, (byte) 0);
      }
      int length = 2 + name.length + (isAbstract ? 0 : 1);
      int fd = (int) SOCKET.invokeExact(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        throw new IOException("socket failed");
      }
      if ((int) BIND.invokeExact(fd, sockaddr, length) != 0) {
        int ignored = (int) CLOSE.invokeExact(fd);
        throw new IOException("bind " + address + " failed");
      }
      return new NotifyReceiver(address, fd);
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
  }

  /** What {@code NOTIFY_SOCKET} is to say. */
  public String address() {
    return address;
  }

  /** The next datagram; fails after {@link Await#PATIENCE} without one. */
  public String next() {
    String message = receive((int) Await.PATIENCE.toMillis());
    if (message == null) {
      throw new AssertionError("no notification on " + address + " within " + Await.PATIENCE);
    }
    return message;
  }

  /** The next datagram that is not {@code WATCHDOG=1} (which comes whenever it is due). */
  public String nextBesidesWatchdog() {
    String message;
    do {
      message = next();
    } while (message.equals("WATCHDOG=1"));
    return message;
  }

  /** A datagram already queued, or null. */
  public String queued() {
    return receive(0);
  }

  private synchronized String receive(int timeoutMillis) {
    try (Arena call = Arena.ofConfined()) {
      MemorySegment pollfd = call.allocate(8, 4);
      pollfd.set(ValueLayout.JAVA_INT, 0, fd);
      pollfd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
      int ready = (int) POLL.invokeExact(pollfd, 1L, timeoutMillis);
      if (ready <= 0) {
        return null;
      }
      long length = (long) RECV.invokeExact(fd, buffer, buffer.byteSize(), 0);
      if (length < 0) {
        throw new AssertionError("recv on " + address + " failed");
      }
      return new String(
          buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable e) {
      throw new AssertionError(e);
    }
  }

  @Override
  public synchronized void close() {
    try {
      int ignored = (int) CLOSE.invokeExact(fd);
    } catch (Throwable e) {
      throw new AssertionError(e);
    } finally {
      arena.close();
    }
  }

  @SuppressWarnings("restricted") // test code calling libc with fixed signatures
  private static MethodHandle handle(
      String name, ValueLayout result, java.lang.foreign.MemoryLayout... arguments) {
    return LINKER.downcallHandle(
        LINKER.defaultLookup().find(name).orElseThrow(), FunctionDescriptor.of(result, arguments));
  }
}
