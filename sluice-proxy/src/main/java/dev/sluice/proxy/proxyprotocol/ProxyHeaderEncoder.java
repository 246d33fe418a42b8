package dev.sluice.proxy.proxyprotocol;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Command;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Writes a {@link ProxyHeader} in its version's form: the exact bytes to send first. */
public final class ProxyHeaderEncoder {
  private static final int UNIX_PATH_BYTES = 108;

  private ProxyHeaderEncoder() {}

  /**
   * The header's bytes.
   *
   * @throws IllegalArgumentException when a version 2 header's TLVs make it longer than 65551
   *     bytes, or a Unix path is longer than 108 bytes
   */
  public static byte[] encode(ProxyHeader header) {
    return switch (header.version()) {
      case V1 -> v1(header);
      case V2 -> v2(header);
    };
  }

  private static byte[] v1(ProxyHeader h) {
    String line =
        switch (h.family()) {
          case UNSPEC, UNIX -> "PROXY UNKNOWN\r\n";
          case TCP4, TCP6 -> {
            InetSocketAddress s = (InetSocketAddress) h.source();
            InetSocketAddress d = (InetSocketAddress) h.destination();
            boolean four = h.family() == ProxyHeader.Family.TCP4;
            yield "PROXY "
                + (four ? "TCP4 " : "TCP6 ")
                + (four ? IpText.format(s.getAddress()) : v6(s))
                + ' '
                + (four ? IpText.format(d.getAddress()) : v6(d))
                + ' '
                + s.getPort()
                + ' '
                + d.getPort()
                + "\r\n";
          }
        };
    return line.getBytes(StandardCharsets.US_ASCII);
  }

  private static String v6(InetSocketAddress address) {
    return IpText.formatIpv6(IpText.sixteen(address.getAddress()));
  }

  private static byte[] v2(ProxyHeader h) {
    int addressBytes =
        switch (h.family()) {
          case UNSPEC -> 0;
          case TCP4 -> 12;
          case TCP6 -> 36;
          case UNIX -> 2 * UNIX_PATH_BYTES;
        };
    int length = addressBytes;
    for (Tlv tlv : h.tlvs()) {
      length += 3 + tlv.length();
    }
    if (length > 0xffff) {
      throw new IllegalArgumentException(
          "the header's addresses and TLVs take " + length + " B, more than 65535");
    }
    ByteBuffer b = ByteBuffer.allocate(ProxyHeaderParser.V2_FIXED_BYTES + length);
    b.put(ProxyHeaderParser.V2_SIGNATURE);
    b.put((byte) (h.command() == Command.LOCAL ? 0x20 : 0x21));
    b.put(
        (byte)
            switch (h.family()) {
              case UNSPEC -> 0x00;
              case TCP4 -> 0x11;
              case TCP6 -> 0x21;
              case UNIX -> 0x31;
            });
    b.putShort((short) length);
    switch (h.family()) {
      case UNSPEC -> {}
      case TCP4, TCP6 -> {
        InetSocketAddress s = (InetSocketAddress) h.source();
        InetSocketAddress d = (InetSocketAddress) h.destination();
        boolean four = h.family() == ProxyHeader.Family.TCP4;
        b.put(four ? s.getAddress().getAddress() : IpText.sixteen(s.getAddress()));
        b.put(four ? d.getAddress().getAddress() : IpText.sixteen(d.getAddress()));
        b.putShort((short) s.getPort());
        b.putShort((short) d.getPort());
      }
      case UNIX -> {
        unixPath(b, (UnixDomainSocketAddress) h.source());
        unixPath(b, (UnixDomainSocketAddress) h.destination());
      }
    }
    for (Tlv tlv : h.tlvs()) {
      b.put((byte) tlv.type()).putShort((short) tlv.length()).put(tlv.raw());
    }
    return b.array();
  }

  private static void unixPath(ByteBuffer b, UnixDomainSocketAddress address) {
    byte[] path = address.getPath().toString().getBytes(StandardCharsets.UTF_8);
    if (path.length > UNIX_PATH_BYTES) {
      throw new IllegalArgumentException(
          "a Unix socket path of " + path.length + " B does not fit in " + UNIX_PATH_BYTES);
    }
    b.put(path);
    b.position(b.position() + UNIX_PATH_BYTES - path.length); // NUL padding: already zero
  }
}
