package dev.sluice.net;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.charset.StandardCharsets;

/** Socket addresses to and from C's sockaddr_in, sockaddr_in6 and sockaddr_un. */
final class SockAddr {
  private static final ValueLayout.OfShort PORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
  private static final ValueLayout.OfInt IPV4 =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
  private static final int UNIX_PATH_MAX = 108;

  private SockAddr() {}

  /** The address family a socket for {@code address} needs. */
  static int family(SocketAddress address) {
    return switch (address) {
      case UnixDomainSocketAddress _ -> Libc.AF_UNIX;
      case InetSocketAddress inet -> {
        if (inet.isUnresolved()) {
          throw new UnresolvedAddressException();
        }
        yield inet.getAddress() instanceof Inet4Address ? Libc.AF_INET : Libc.AF_INET6;
      }
      default -> throw new UnsupportedAddressTypeException();
    };
  }

  /** Writes {@code address} into {@code to}; returns its length. */
  static int encode(SocketAddress address, MemorySegment to) throws IOException {
    to.fill((byte) 0);
    switch (address) {
      case UnixDomainSocketAddress unix -> {
        byte[] path = unix.getPath().toString().getBytes(StandardCharsets.UTF_8);
        if (path.length >= UNIX_PATH_MAX) {
          throw new IOException("Unix-domain socket path too long: " + unix.getPath());
        }
        to.set(ValueLayout.JAVA_SHORT, 0, (short) Libc.AF_UNIX);
        MemorySegment.copy(path, 0, to, ValueLayout.JAVA_BYTE, 2, path.length);
        return 2 + path.length + 1;
      }
      case InetSocketAddress inet -> {
        if (inet.isUnresolved()) {
          throw new UnresolvedAddressException();
        }
        byte[] ip = inet.getAddress().getAddress();
        to.set(PORT, 2, (short) inet.getPort());
        if (ip.length == 4) {
          to.set(ValueLayout.JAVA_SHORT, 0, (short) Libc.AF_INET);
          MemorySegment.copy(ip, 0, to, ValueLayout.JAVA_BYTE, 4, 4);
          return 16;
        }
        to.set(ValueLayout.JAVA_SHORT, 0, (short) Libc.AF_INET6);
        MemorySegment.copy(ip, 0, to, ValueLayout.JAVA_BYTE, 8, 16);
        if (inet.getAddress() instanceof Inet6Address v6) {
          to.set(ValueLayout.JAVA_INT_UNALIGNED, 24, v6.getScopeId());
        }
        return 28;
      }
      default -> throw new UnsupportedAddressTypeException();
    }
  }

  /**
   * An IPv4 socket address as one long (address and port), or -1 for any other family: what a
   * connection keeps of an address it rarely needs, instead of the JDK's three objects (80 B).
   */
  static long packedIpv4(MemorySegment from) {
    if (from.get(ValueLayout.JAVA_SHORT, 0) != Libc.AF_INET) {
      return -1;
    }
    long ip = Integer.toUnsignedLong(from.get(IPV4, 4));
    return ip << 16 | Short.toUnsignedInt(from.get(PORT, 2));
  }

  /** The address {@link #packedIpv4} packed. */
  static InetSocketAddress unpackIpv4(long packed) {
    int ip = (int) (packed >>> 16);
    byte[] bytes = {(byte) (ip >>> 24), (byte) (ip >>> 16), (byte) (ip >>> 8), (byte) ip};
    try {
      return new InetSocketAddress(InetAddress.getByAddress(bytes), (int) (packed & 0xffff));
    } catch (UnknownHostException e) {
      throw new AssertionError("four bytes are an IPv4 address", e);
    }
  }

  /** Reads the address of {@code length} bytes in {@code from}. */
  static SocketAddress decode(MemorySegment from, int length) throws IOException {
    int family = from.get(ValueLayout.JAVA_SHORT, 0);
    try {
      switch (family) {
        case Libc.AF_INET -> {
          byte[] ip = new byte[4];
          MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 4, ip, 0, 4);
          return new InetSocketAddress(
              InetAddress.getByAddress(ip), Short.toUnsignedInt(from.get(PORT, 2)));
        }
        case Libc.AF_INET6 -> {
          byte[] ip = new byte[16];
          MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 8, ip, 0, 16);
          // An IPv4-mapped address comes back as the Inet4Address it maps, as the JDK gives it.
          return new InetSocketAddress(
              InetAddress.getByAddress(ip), Short.toUnsignedInt(from.get(PORT, 2)));
        }
        case Libc.AF_UNIX -> {
          int max = Math.min(length, 2 + UNIX_PATH_MAX) - 2;
          int end = 0;
          while (end < max && from.get(ValueLayout.JAVA_BYTE, 2 + end) != 0) {
            end++;
          }
          byte[] path = new byte[end];
          MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 2, path, 0, end);
          return UnixDomainSocketAddress.of(new String(path, StandardCharsets.UTF_8));
        }
        default -> throw new IOException("unknown address family " + family);
      }
    } catch (UnknownHostException e) {
      throw new IOException("bad address from the kernel", e); // not reached: lengths are right
    }
  }
}
