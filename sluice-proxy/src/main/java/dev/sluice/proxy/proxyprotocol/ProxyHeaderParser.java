package dev.sluice.proxy.proxyprotocol;

import dev.sluice.proxy.proxyprotocol.ProxyHeader.Command;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Family;
import dev.sluice.proxy.proxyprotocol.ProxyHeader.Version;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Reads a PROXY protocol header (v1 or v2) from the first bytes of a connection, as they arrive:
 * given every byte so far it answers {@link NeedMore}, {@link Invalid} with the reason, or {@link
 * Parsed} with the header and its length (the bytes after it are the client's). It holds no state
 * between calls, because the first stage it runs in keeps the bytes; a call costs a scan of at most
 * 107 bytes for v1 and, for v2, nothing until the length its fixed part announced is in.
 *
 * <p>It refuses at the first byte that cannot begin a valid header, and once a header is long
 * enough to be judged: a bad signature, version, command, family or length; a v1 line without CRLF
 * within 107 bytes, with bad addresses or ports, or with anything after the destination port; a
 * datagram header on this stream; TLVs (and the SSL TLV's sub-TLVs) that overrun the header; a
 * CRC32c TLV that does not match; a v2 header longer than the most allowed, as soon as its length
 * is read.
 */
public final class ProxyHeaderParser {
  /** The longest v1 line, CRLF included. */
  public static final int V1_MAX_BYTES = 107;

  /** The fixed part of a v2 header: signature, version and command, family, length. */
  public static final int V2_FIXED_BYTES = 16;

  /** The longest v2 header there can be. */
  public static final int V2_MAX_BYTES = V2_FIXED_BYTES + 0xffff;

  /** The smallest limit that leaves room for every address block (two Unix paths). */
  public static final int MIN_MAX_BYTES = V2_FIXED_BYTES + 216;

  static final byte[] V2_SIGNATURE = {
    0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A
  };

  private static final byte[] V1_PREFIX = "PROXY ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[][] V1_PROTOCOLS = {
    "TCP4 ".getBytes(StandardCharsets.US_ASCII),
    "TCP6 ".getBytes(StandardCharsets.US_ASCII),
    "UNKNOWN".getBytes(StandardCharsets.US_ASCII)
  };
  private static final int UNIX_PATH_BYTES = 108;

  /** What a call decided. */
  public sealed interface Result {}

  /** Not decided yet: every byte so far can begin a valid header. */
  public record NeedMore() implements Result {}

  /** A complete header of {@code length} bytes; what follows it is the client's. */
  public record Parsed(ProxyHeader header, int length) implements Result {}

  /** Not a valid header, and why. */
  public record Invalid(String reason) implements Result {}

  private static final NeedMore NEED_MORE = new NeedMore();

  private final boolean v1;
  private final boolean v2;
  private final int maxBytes;

  /**
   * @param versions the versions accepted (a header of another is refused, saying so)
   * @param maxBytes the longest v2 header accepted, at least {@link #MIN_MAX_BYTES}
   */
  public ProxyHeaderParser(Set<Version> versions, int maxBytes) {
    if (versions.isEmpty()) {
      throw new IllegalArgumentException("accept at least one version");
    }
    if (maxBytes < MIN_MAX_BYTES || maxBytes > V2_MAX_BYTES) {
      throw new IllegalArgumentException(
          "maxBytes must be " + MIN_MAX_BYTES + ".." + V2_MAX_BYTES + ", not " + maxBytes);
    }
    this.v1 = versions.contains(Version.V1);
    this.v2 = versions.contains(Version.V2);
    this.maxBytes = maxBytes;
  }

  /** The most bytes a header may take here: what a first stage must be allowed to hold. */
  public int maxBytes() {
    return v2 ? maxBytes : V1_MAX_BYTES;
  }

  /** Judges every byte read so far, between {@code prefix}'s position and limit (not moved). */
  public Result parse(ByteBuffer prefix) {
    int at = prefix.position();
    int n = prefix.remaining();
    if (n == 0) {
      return NEED_MORE;
    }
    byte first = prefix.get(at);
    if (first == V1_PREFIX[0]) {
      return parseV1(prefix, at, n);
    }
    if (first == V2_SIGNATURE[0]) {
      return parseV2(prefix, at, n);
    }
    return notAHeader(prefix, at, n);
  }

  /** What the first bytes of a connection say about a PROXY protocol header. */
  public enum Signature {
    /** Too few bytes to tell. */
    UNDECIDED,
    /** The bytes cannot begin a header (of either version): the client's own. */
    ABSENT,
    /** A whole signature ({@code "PROXY "} or v2's twelve bytes): a header begins here. */
    PRESENT
  }

  /**
   * Whether the bytes between {@code prefix}'s position and limit begin a PROXY protocol header, of
   * either version whatever this parser accepts: for a listener on which headers are optional (or
   * refused from some peers), telling a header from a direct client's first bytes.
   */
  public static Signature signature(ByteBuffer prefix) {
    Signature v1 = signature(prefix, V1_PREFIX);
    return v1 != Signature.ABSENT ? v1 : signature(prefix, V2_SIGNATURE);
  }

  private static Signature signature(ByteBuffer b, byte[] expected) {
    int at = b.position();
    int n = Math.min(b.remaining(), expected.length);
    for (int i = 0; i < n; i++) {
      if (b.get(at + i) != expected[i]) {
        return Signature.ABSENT;
      }
    }
    return n == expected.length ? Signature.PRESENT : Signature.UNDECIDED;
  }

  private static Invalid notAHeader(ByteBuffer b, int at, int n) {
    String looks = "";
    if (b.get(at) == 0x16) {
      looks = ": a TLS handshake (is the load balancer sending the header?)";
    } else if (n >= 4 && isPrintable(b, at, 4)) {
      looks = ": text";
    }
    return new Invalid("not a PROXY protocol header (it starts " + start(b, at, n) + looks + ")");
  }

  // ---- version 1 ----

  private Result parseV1(ByteBuffer b, int at, int n) {
    for (int i = 0; i < Math.min(n, V1_PREFIX.length); i++) {
      if (b.get(at + i) != V1_PREFIX[i]) {
        return notAHeader(b, at, n);
      }
    }
    if (n < V1_PREFIX.length) {
      return NEED_MORE;
    }
    if (!v1) {
      return new Invalid("a PROXY v1 header, and this listener accepts only v2");
    }
    int limit = Math.min(n, V1_MAX_BYTES);
    int lf = -1;
    for (int i = V1_PREFIX.length; i < limit; i++) {
      byte c = b.get(at + i);
      if (c == '\n') {
        if (b.get(at + i - 1) != '\r') {
          return new Invalid("the PROXY v1 line ends with LF without CR");
        }
        lf = i;
        break;
      }
      if (c == '\r') {
        if (i + 1 < limit && b.get(at + i + 1) != '\n') {
          return new Invalid("a CR not followed by LF in the PROXY v1 line");
        }
      } else if (c < 0x20 || c > 0x7e) {
        return new Invalid(
            String.format("a byte 0x%02x that is not printable in the PROXY v1 line", c & 0xff));
      }
    }
    // The protocol word decides early: "PROXY HTTP/1.1" is refused at once.
    int known = Math.min(lf < 0 ? limit : lf - 1, V1_PREFIX.length + 7) - V1_PREFIX.length;
    if (!anyProtocolStartsWith(b, at + V1_PREFIX.length, known)) {
      return new Invalid(
          "an unknown PROXY v1 protocol '"
              + word(b, at + V1_PREFIX.length, at + (lf < 0 ? limit : lf - 1))
              + "' (TCP4, TCP6 or UNKNOWN)");
    }
    if (lf < 0) {
      return n >= V1_MAX_BYTES
          ? new Invalid("no CRLF within the " + V1_MAX_BYTES + " bytes of a PROXY v1 line")
          : NEED_MORE;
    }
    byte[] line = new byte[lf - 1 - V1_PREFIX.length]; // between "PROXY " and CRLF
    b.get(at + V1_PREFIX.length, line);
    return parseV1Line(line, lf + 1);
  }

  private static boolean anyProtocolStartsWith(ByteBuffer b, int from, int count) {
    for (byte[] protocol : V1_PROTOCOLS) {
      int k = Math.min(count, protocol.length);
      boolean match = true;
      for (int i = 0; i < k && match; i++) {
        match = b.get(from + i) == protocol[i];
      }
      if (match) {
        return true;
      }
    }
    return false;
  }

  private static Result parseV1Line(byte[] line, int length) {
    String text = new String(line, StandardCharsets.US_ASCII);
    int firstSpace = text.indexOf(' ');
    String protocol = firstSpace < 0 ? text : text.substring(0, firstSpace);
    switch (protocol) {
      case "UNKNOWN" -> {
        // Whatever follows UNKNOWN is to be ignored, by the specification.
        return new Parsed(ProxyHeader.v1Unknown(), length);
      }
      case "TCP4", "TCP6" -> {}
      default -> {
        return new Invalid(
            "an unknown PROXY v1 protocol '" + protocol + "' (TCP4, TCP6 or UNKNOWN)");
      }
    }
    boolean four = protocol.equals("TCP4");
    // "TCP4 src dst sport dport": five fields between single spaces, nothing after the last.
    int[] from = new int[5];
    int[] to = new int[5];
    int fields = 0;
    int start = 0;
    for (int i = 0; i <= line.length; i++) {
      if (i == line.length || line[i] == ' ') {
        if (i == start) {
          return new Invalid(
              "an empty field (two spaces, or a space at an end) in the PROXY v1 line '"
                  + text
                  + "'");
        }
        if (fields == 5) {
          return new Invalid(
              "something after the destination port in the PROXY v1 line: '"
                  + text.substring(start)
                  + "'");
        }
        from[fields] = start;
        to[fields] = i;
        fields++;
        start = i + 1;
      }
    }
    if (fields < 5) {
      return new Invalid(
          "a PROXY v1 "
              + protocol
              + " line needs source and destination addresses and ports: '"
              + text
              + "'");
    }
    // Fields 1..4: the addresses and ports (0 is the protocol).
    from = Arrays.copyOfRange(from, 1, 5);
    to = Arrays.copyOfRange(to, 1, 5);
    String family = four ? "IPv4" : "IPv6";
    byte[] src = ip(four, line, from[0], to[0]);
    if (src == null) {
      return new Invalid(
          "the source '" + text.substring(from[0], to[0]) + "' is not an " + family + " address");
    }
    byte[] dst = ip(four, line, from[1], to[1]);
    if (dst == null) {
      return new Invalid(
          "the destination '"
              + text.substring(from[1], to[1])
              + "' is not an "
              + family
              + " address");
    }
    int sourcePort = port(line, from[2], to[2]);
    if (sourcePort < 0) {
      return new Invalid(
          "the source port '" + text.substring(from[2], to[2]) + "' is not a port (0..65535)");
    }
    int destinationPort = port(line, from[3], to[3]);
    if (destinationPort < 0) {
      return new Invalid(
          "the destination port '" + text.substring(from[3], to[3]) + "' is not a port (0..65535)");
    }
    return new Parsed(
        new ProxyHeader(
            Version.V1,
            Command.PROXY,
            four ? Family.TCP4 : Family.TCP6,
            new InetSocketAddress(IpText.address(src), sourcePort),
            new InetSocketAddress(IpText.address(dst), destinationPort),
            List.of()),
        length);
  }

  private static byte[] ip(boolean four, byte[] text, int from, int to) {
    return four ? IpText.parseIpv4(text, from, to) : IpText.parseIpv6(text, from, to);
  }

  /** A decimal port without leading zeros, or -1. */
  private static int port(byte[] text, int from, int to) {
    int digits = to - from;
    if (digits < 1 || digits > 5 || (digits > 1 && text[from] == '0')) {
      return -1;
    }
    int value = 0;
    for (int i = from; i < to; i++) {
      if (text[i] < '0' || text[i] > '9') {
        return -1;
      }
      value = value * 10 + (text[i] - '0');
    }
    return value <= 0xffff ? value : -1;
  }

  // ---- version 2 ----

  private Result parseV2(ByteBuffer b, int at, int n) {
    for (int i = 0; i < Math.min(n, V2_SIGNATURE.length); i++) {
      if (b.get(at + i) != V2_SIGNATURE[i]) {
        return notAHeader(b, at, n);
      }
    }
    if (n < V2_SIGNATURE.length) {
      return NEED_MORE;
    }
    if (!v2) {
      return new Invalid("a PROXY v2 header, and this listener accepts only v1");
    }
    if (n < 13) {
      return NEED_MORE;
    }
    int versionCommand = b.get(at + 12) & 0xff;
    if (versionCommand >> 4 != 2) {
      return new Invalid("PROXY v2 signature with version " + (versionCommand >> 4) + ", not 2");
    }
    int commandBits = versionCommand & 0x0f;
    if (commandBits > 1) {
      return new Invalid("an undefined PROXY v2 command " + commandBits + " (0 LOCAL, 1 PROXY)");
    }
    Command command = commandBits == 0 ? Command.LOCAL : Command.PROXY;
    if (n < 14) {
      return NEED_MORE;
    }
    int familyByte = b.get(at + 13) & 0xff;
    int addressBytes =
        switch (familyByte) {
          case 0x00 -> 0;
          case 0x11, 0x12 -> 12;
          case 0x21, 0x22 -> 36;
          case 0x31, 0x32 -> 2 * UNIX_PATH_BYTES;
          default -> -1;
        };
    if (addressBytes < 0) {
      return new Invalid(String.format("an undefined PROXY v2 address family 0x%02x", familyByte));
    }
    if (command == Command.PROXY && (familyByte & 0x0f) == 2) {
      return new Invalid("a PROXY v2 header for a datagram (UDP) connection on a TCP stream");
    }
    if (n < V2_FIXED_BYTES) {
      return NEED_MORE;
    }
    int length = b.getShort(at + 14) & 0xffff;
    int total = V2_FIXED_BYTES + length;
    if (total > maxBytes) {
      return new Invalid(
          "a " + total + " B PROXY v2 header, above the most accepted (" + maxBytes + " B)");
    }
    if (command == Command.PROXY && length < addressBytes) {
      return new Invalid(
          "a PROXY v2 length of "
              + length
              + " B, too short for its "
              + familyName(familyByte)
              + " addresses ("
              + addressBytes
              + " B)");
    }
    if (n < total) {
      return NEED_MORE;
    }
    if (command == Command.LOCAL) {
      // The receiver discards the block of a LOCAL header, family and all (by the specification).
      return new Parsed(ProxyHeader.v2Local(), total);
    }
    ByteBuffer block = b.slice(at, total);
    List<Tlv> tlvs = new ArrayList<>(2);
    String bad = readTlvs(block, V2_FIXED_BYTES + addressBytes, total, tlvs);
    if (bad != null) {
      return new Invalid(bad);
    }
    SocketAddress source = null;
    SocketAddress destination = null;
    Family family = Family.UNSPEC;
    int a = V2_FIXED_BYTES;
    switch (familyByte) {
      case 0x11 -> {
        family = Family.TCP4;
        source = inet(block, a, 4, a + 8);
        destination = inet(block, a + 4, 4, a + 10);
      }
      case 0x21 -> {
        family = Family.TCP6;
        source = inet(block, a, 16, a + 32);
        destination = inet(block, a + 16, 16, a + 34);
      }
      case 0x31 -> {
        family = Family.UNIX;
        source = unix(block, a);
        destination = unix(block, a + UNIX_PATH_BYTES);
        if (source == null || destination == null) {
          return new Invalid("a PROXY v2 Unix socket path that is not UTF-8");
        }
      }
      default -> {} // UNSPEC: no addresses; the connection's own hold
    }
    return new Parsed(
        new ProxyHeader(Version.V2, Command.PROXY, family, source, destination, tlvs), total);
  }

  private static String familyName(int familyByte) {
    return switch (familyByte >> 4) {
      case 1 -> "IPv4";
      case 2 -> "IPv6";
      default -> "Unix socket";
    };
  }

  /**
   * Reads the TLVs of {@code header} between {@code from} and {@code to} into {@code out}; returns
   * what is wrong with them, or null.
   */
  private static String readTlvs(ByteBuffer header, int from, int to, List<Tlv> out) {
    int i = from;
    while (i < to) {
      if (to - i < 3) {
        return "a PROXY v2 TLV cut off: " + (to - i) + " B left where a TLV needs at least 3";
      }
      int type = header.get(i) & 0xff;
      int length = header.getShort(i + 1) & 0xffff;
      if (length > to - i - 3) {
        return String.format(
            "PROXY v2 TLV 0x%02x of %d B overruns the header (%d B left)",
            type, length, to - i - 3);
      }
      byte[] value = new byte[length];
      header.get(i + 3, value);
      switch (type) {
        case Tlv.SSL -> {
          String bad = checkSsl(value);
          if (bad != null) {
            return bad;
          }
        }
        case Tlv.CRC32C -> {
          if (length != 4) {
            return "a PROXY v2 CRC32c TLV of " + length + " B, not 4";
          }
          if (!crcMatches(header, i + 3)) {
            return "the PROXY v2 header's CRC32c does not match its bytes";
          }
        }
        default -> {}
      }
      if (type != Tlv.NOOP && type != Tlv.CRC32C) {
        out.add(new Tlv(type, value)); // padding and the checksum say nothing about the client
      }
      i += 3 + length;
    }
    return null;
  }

  private static String checkSsl(byte[] value) {
    if (value.length < 5) {
      return "a PROXY v2 SSL TLV of " + value.length + " B, shorter than its 5 B of fields";
    }
    int i = 5;
    while (i < value.length) {
      if (value.length - i < 3) {
        return "a sub-TLV of the PROXY v2 SSL TLV cut off: " + (value.length - i) + " B left";
      }
      int type = value[i] & 0xff;
      int length = (value[i + 1] & 0xff) << 8 | (value[i + 2] & 0xff);
      if (length > value.length - i - 3) {
        return String.format(
            "sub-TLV 0x%02x of %d B overruns the PROXY v2 SSL TLV (%d B left)",
            type, length, value.length - i - 3);
      }
      i += 3 + length;
    }
    return null;
  }

  /** Whether the CRC32c of {@code header}, with the 4 bytes at {@code at} as zero, is them. */
  private static boolean crcMatches(ByteBuffer header, int at) {
    int expected = header.getInt(at);
    CRC32C crc = new CRC32C();
    crc.update(header.slice(0, at));
    crc.update(new byte[4]);
    crc.update(header.slice(at + 4, header.limit() - at - 4));
    return (int) crc.getValue() == expected;
  }

  private static InetSocketAddress inet(ByteBuffer b, int at, int size, int portAt) {
    byte[] address = new byte[size];
    b.get(at, address);
    return new InetSocketAddress(IpText.address(address), b.getShort(portAt) & 0xffff);
  }

  /** A NUL-padded path (its bytes up to the first NUL, as UTF-8), or null when not UTF-8. */
  private static UnixDomainSocketAddress unix(ByteBuffer b, int at) {
    int end = 0;
    while (end < UNIX_PATH_BYTES && b.get(at + end) != 0) {
      end++;
    }
    try {
      String path =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(b.slice(at, end))
              .toString();
      return UnixDomainSocketAddress.of(path);
    } catch (CharacterCodingException | RuntimeException e) {
      return null;
    }
  }

  // ---- words for reasons ----

  private static String start(ByteBuffer b, int at, int n) {
    int k = Math.min(n, 8);
    if (isPrintable(b, at, k)) {
      byte[] text = new byte[k];
      b.get(at, text);
      return "'" + new String(text, StandardCharsets.US_ASCII) + (n > k ? "...'" : "'");
    }
    byte[] bytes = new byte[k];
    b.get(at, bytes);
    return HexFormat.ofDelimiter(" ").formatHex(bytes) + (n > k ? " ..." : "");
  }

  private static boolean isPrintable(ByteBuffer b, int at, int k) {
    for (int i = 0; i < k; i++) {
      byte c = b.get(at + i);
      if (c < 0x20 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  private static String word(ByteBuffer b, int from, int to) {
    int end = from;
    while (end < to && end - from < 16 && b.get(end) != ' ') {
      end++;
    }
    byte[] w = new byte[end - from];
    b.get(from, w);
    return new String(w, StandardCharsets.US_ASCII);
  }
}
