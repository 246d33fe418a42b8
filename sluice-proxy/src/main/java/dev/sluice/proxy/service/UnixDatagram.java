package dev.sluice.proxy.service;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Sends one datagram to a Unix datagram socket, through libc's {@code socket}, {@code sendto} and
 * {@code close}: the JDK has Unix stream channels only. Linux's layout of {@code struct
 * sockaddr_un}: a 16-bit family, then {@code sun_path}.
 */
final class UnixDatagram {
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int SOCK_CLOEXEC = 0x80000;
  private static final int MSG_NOSIGNAL = 0x4000;
  private static final long SUN_PATH_OFFSET = 2;

  private UnixDatagram() {}

  /**
   * Sends {@code payload} to {@code to} as one datagram.
   *
   * @throws IOException with libc's reason (such as "No such file or directory", "Connection
   *     refused") or why libc cannot be called here
   */
  static void send(NotifyAddress to, byte[] payload) throws IOException {
    Libc libc = Libc.get();
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment errno = arena.allocate(Libc.CAPTURE_LAYOUT);
      int fd = (int) libc.socket.invokeExact(errno, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        throw libc.failure("socket", errno);
      }
      try {
        byte[] sunPath = to.sunPath();
        MemorySegment address = arena.allocate(SUN_PATH_OFFSET + NotifyAddress.SUN_PATH_SIZE, 2);
        address.set(ValueLayout.JAVA_SHORT, 0, (short) AF_UNIX);
        MemorySegment.copy(
            sunPath, 0, address, ValueLayout.JAVA_BYTE, SUN_PATH_OFFSET, sunPath.length);
        MemorySegment data = arena.allocate(Math.max(1, payload.length));
        MemorySegment.copy(payload, 0, data, ValueLayout.JAVA_BYTE, 0, payload.length);
        long sent =
            (long)
                libc.sendto.invokeExact(
                    errno,
                    fd,
                    data,
                    (long) payload.length,
                    MSG_NOSIGNAL,
                    address,
                    (int) (SUN_PATH_OFFSET + sunPath.length));
        if (sent < 0) {
          throw libc.failure("sendto", errno);
        }
      } finally {
        int ignored = (int) libc.close.invokeExact(fd); // nothing to flush on a datagram socket
      }
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Throwable e) {
      if (e instanceof Error fatal) {
        throw fatal;
      }
      throw new IOException(e);
    }
  }

  /** The libc functions, linked on first use; why not, when they cannot be. */
  private static final class Libc {
    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
        CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static volatile Libc linked;

    final MethodHandle socket;
    final MethodHandle sendto;
    final MethodHandle close;
    final MethodHandle strerror;

    @SuppressWarnings("restricted") // fixed libc signatures; jvm.options allows native access
    private Libc() {
      Linker linker = Linker.nativeLinker();
      Linker.Option errno = Linker.Option.captureCallState("errno");
      socket =
          linker.downcallHandle(
              find(linker, "socket"),
              FunctionDescriptor.of(
                  ValueLayout.JAVA_INT,
                  ValueLayout.JAVA_INT,
                  ValueLayout.JAVA_INT,
                  ValueLayout.JAVA_INT),
              errno);
      sendto =
          linker.downcallHandle(
              find(linker, "sendto"),
              FunctionDescriptor.of(
                  ValueLayout.JAVA_LONG,
                  ValueLayout.JAVA_INT,
                  ValueLayout.ADDRESS,
                  ValueLayout.JAVA_LONG,
                  ValueLayout.JAVA_INT,
                  ValueLayout.ADDRESS,
                  ValueLayout.JAVA_INT),
              errno);
      close =
          linker.downcallHandle(
              find(linker, "close"),
              FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
      strerror =
          linker.downcallHandle(
              find(linker, "strerror"),
              FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
    }

    private static MemorySegment find(Linker linker, String name) {
      return linker
          .defaultLookup()
          .find(name)
          .orElseThrow(() -> new IllegalStateException("libc has no " + name));
    }

    static Libc get() throws IOException {
      Libc l = linked;
      if (l == null) {
        try {
          l = new Libc();
        } catch (RuntimeException e) { // no native access (--illegal-native-access=deny), no libc
          throw new IOException("cannot call libc: " + e.getMessage(), e);
        }
        linked = l;
      }
      return l;
    }

    @SuppressWarnings("restricted") // strerror's answer is a C string of libc's
    IOException failure(String call, MemorySegment captured) {
      int code = (int) ERRNO.get(captured, 0L);
      String reason;
      try {
        MemorySegment text = (MemorySegment) strerror.invokeExact(code);
        reason = text.reinterpret(1024).getString(0);
      } catch (Throwable e) {
        if (e instanceof Error fatal) {
          throw fatal;
        }
        reason = "errno " + code;
      }
      return new IOException(call + ": " + reason);
    }
  }
}
