package dev.sluice.proxy.route;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads the server name (SNI) and the offered application protocols (ALPN) from the first bytes of
 * a TLS connection without terminating it: the ClientHello, reassembled when it is split across TCP
 * segments or TLS records; and what the client offered, in its order, for its JA3 and JA4
 * fingerprints. Strict: anything that is not a well-formed ClientHello is {@link Invalid} with a
 * reason, never guessed at.
 */
public final class ClientHello {
  private static final int RECORD_HEADER = 5;
  private static final int HANDSHAKE = 22;
  private static final int CLIENT_HELLO = 1;
  private static final int MAX_RECORD = 16384 + 2048;
  private static final int EXT_SERVER_NAME = 0;
  private static final int EXT_SUPPORTED_GROUPS = 10;
  private static final int EXT_EC_POINT_FORMATS = 11;
  private static final int EXT_SIGNATURE_ALGORITHMS = 13;
  private static final int EXT_ALPN = 16;
  private static final int EXT_SUPPORTED_VERSIONS = 43;

  private ClientHello() {}

  /** The outcome of reading the bytes so far. */
  public sealed interface Result {}

  /** A ClientHello has begun but is not complete: read more. */
  public record NeedMore() implements Result {}

  /**
   * A complete ClientHello.
   *
   * @param serverName the host name asked for, lower case, or null when none was sent
   * @param protocols the ALPN protocols offered, in the client's order (empty when none)
   * @param offer every value the fingerprints are made of
   */
  public record Parsed(String serverName, List<String> protocols, Offer offer) implements Result {}

  /**
   * What the client offered, each list in the client's order with GREASE values kept (the
   * fingerprints drop them): the fields JA3 and JA4 are made of.
   *
   * @param legacyVersion the ClientHello's version field (0x0303 for TLS 1.2 and 1.3)
   * @param cipherSuites the cipher suites
   * @param extensions the extension types
   * @param supportedGroups the supported_groups (elliptic_curves) extension's list, empty if none
   * @param pointFormats the ec_point_formats extension's list, empty if none
   * @param signatureAlgorithms the signature_algorithms extension's list, empty if none
   * @param supportedVersions the supported_versions extension's list, empty if none
   * @param protocols the ALPN protocols, each byte a char (ISO 8859-1), empty if none
   */
  public record Offer(
      int legacyVersion,
      List<Integer> cipherSuites,
      List<Integer> extensions,
      List<Integer> supportedGroups,
      List<Integer> pointFormats,
      List<Integer> signatureAlgorithms,
      List<Integer> supportedVersions,
      List<String> protocols) {
    public Offer {
      cipherSuites = List.copyOf(cipherSuites);
      extensions = List.copyOf(extensions);
      supportedGroups = List.copyOf(supportedGroups);
      pointFormats = List.copyOf(pointFormats);
      signatureAlgorithms = List.copyOf(signatureAlgorithms);
      supportedVersions = List.copyOf(supportedVersions);
      protocols = List.copyOf(protocols);
    }
  }

  /** Not a ClientHello, or a malformed one. */
  public record Invalid(String reason) implements Result {}

  private static final NeedMore NEED_MORE = new NeedMore();

  /**
   * Reads {@code prefix} (position to limit; not moved): every byte the client sent so far.
   *
   * @param maxBytes the most bytes a ClientHello may take, records and all
   */
  public static Result parse(ByteBuffer prefix, int maxBytes) {
    return new Reader(maxBytes).read(prefix);
  }

  /**
   * One connection's ClientHello, read as its bytes arrive: each call is given every byte so far
   * (the last call's and more) and resumes at the first record it has not read whole, so that a
   * ClientHello trickled in costs work linear in its size. The records are only walked again, and
   * their fragments copied into one message, once the whole message has arrived (none of that when
   * it fits in its first record, which is read in place). Not thread-safe: one connection's loop.
   */
  public static final class Reader {
    private final int maxBytes;
    private final byte[] header = new byte[4];
    private int headerBytes;
    private int next; // where the first record not yet read whole starts, from the prefix's start
    private int messageBytes; // handshake bytes in the records read whole
    private int needed = -1; // the whole message, its 4-byte header included, once known
    private Result decided;
    private long recordHeadersRead;
    private long bytesCopied;

    /**
     * @param maxBytes the most bytes a ClientHello may take, records and all
     */
    public Reader(int maxBytes) {
      this.maxBytes = maxBytes;
    }

    /**
     * Reads {@code prefix} (position to limit; not moved): every byte the client sent so far, the
     * bytes of the last call first. Once decided, the same decision.
     */
    public Result read(ByteBuffer prefix) {
      if (decided == null) {
        Result result = advance(prefix);
        if (!(result instanceof NeedMore)) {
          decided = result;
        }
        return result;
      }
      return decided;
    }

    /** Record headers read so far, over every call (linear in the calls and the records). */
    long recordHeadersRead() {
      return recordHeadersRead;
    }

    /** Bytes copied to assemble a message split across records (at most the message, once). */
    long bytesCopied() {
      return bytesCopied;
    }

    private Result advance(ByteBuffer in) {
      int base = in.position();
      int n = in.remaining();
      if (n > 0 && (in.get(base) & 0xff) != HANDSHAKE) {
        return firstByteIsNotTls(in.get(base) & 0xff); // decided by the first byte
      }
      while (true) {
        if (n - next < RECORD_HEADER) {
          return next + RECORD_HEADER > maxBytes ? tooLarge(maxBytes) : NEED_MORE;
        }
        recordHeadersRead++;
        int at = base + next;
        int type = in.get(at) & 0xff;
        int major = in.get(at + 1) & 0xff;
        int length = in.getShort(at + 3) & 0xffff;
        if (type != HANDSHAKE) {
          return new Invalid(
              "not a TLS handshake record (content type " + type + ", after the first record)");
        }
        if (major != 3) {
          return new Invalid(
              "not a TLS record (version " + major + "." + (in.get(at + 2) & 0xff) + ")");
        }
        if (length == 0 || length > MAX_RECORD) {
          return new Invalid("a handshake record of " + length + " B");
        }
        if (next + RECORD_HEADER + length > maxBytes) {
          return tooLarge(maxBytes);
        }
        boolean firstRecord = next == 0;
        int fragment = at + RECORD_HEADER;
        if (firstRecord) {
          // The handshake header is in the first record: check it before waiting for the rest.
          int available = Math.min(length, n - RECORD_HEADER);
          if (available >= 1 && (in.get(fragment) & 0xff) != CLIENT_HELLO) {
            return new Invalid(
                "the first handshake message is type "
                    + (in.get(fragment) & 0xff)
                    + ", not a ClientHello");
          }
          if (available >= 4 && 4 + handshakeLength(in, fragment) > maxBytes) {
            return tooLarge(maxBytes);
          }
        }
        if (n - next < RECORD_HEADER + length) {
          return NEED_MORE;
        }
        if (firstRecord && length >= 4) {
          int whole = 4 + handshakeLength(in, fragment);
          if (whole <= length) {
            return body(in.slice(fragment + 4, whole - 4)); // all in one record: read it in place
          }
        }
        for (int i = 0; headerBytes < 4 && i < length; i++) {
          header[headerBytes++] = in.get(fragment + i);
        }
        messageBytes += length;
        next += RECORD_HEADER + length;
        if (needed < 0 && headerBytes == 4) {
          int handshakeType = header[0] & 0xff;
          if (handshakeType != CLIENT_HELLO) {
            return new Invalid(
                "the first handshake message is type " + handshakeType + ", not a ClientHello");
          }
          needed = 4 + handshakeLength(ByteBuffer.wrap(header), 0);
          if (needed > maxBytes) {
            return tooLarge(maxBytes);
          }
        }
        if (needed >= 0 && messageBytes >= needed) {
          return body(ByteBuffer.wrap(assemble(in, base)).slice(4, needed - 4));
        }
      }
    }

    /** The first {@code needed} bytes of the records' fragments, in one array: copied once. */
    private byte[] assemble(ByteBuffer in, int base) {
      byte[] message = new byte[needed];
      int filled = 0;
      for (int at = base; filled < needed; ) {
        int length = in.getShort(at + 3) & 0xffff;
        int take = Math.min(length, needed - filled);
        in.get(at + RECORD_HEADER, message, filled, take);
        filled += take;
        at += RECORD_HEADER + length;
      }
      bytesCopied += needed;
      return message;
    }
  }

  private static int handshakeLength(ByteBuffer b, int at) {
    return (b.get(at + 1) & 0xff) << 16 | (b.get(at + 2) & 0xff) << 8 | (b.get(at + 3) & 0xff);
  }

  private static Invalid firstByteIsNotTls(int first) {
    if ((first & 0x80) != 0) {
      return new Invalid("an SSLv2-style hello, which carries no server name");
    }
    return new Invalid(
        "not a TLS handshake record (content type "
            + first
            + (first >= 'A' && first <= 'Z' ? ", '" + (char) first + "': plaintext?)" : ")"));
  }

  private static Invalid tooLarge(int maxBytes) {
    return new Invalid("no complete ClientHello within " + maxBytes + " B");
  }

  private static Result body(ByteBuffer b) {
    try {
      int version = b.getShort() & 0xffff;
      if (version < 0x0301 || version > 0x0303) {
        return new Invalid(String.format(Locale.ROOT, "ClientHello version 0x%04x", version));
      }
      skip(b, 32, "random");
      int sessionId = b.get() & 0xff;
      if (sessionId > 32) {
        return new Invalid("a session id of " + sessionId + " B");
      }
      skip(b, sessionId, "session id");
      int suitesLength = b.getShort() & 0xffff;
      if (suitesLength < 2 || suitesLength % 2 != 0) {
        return new Invalid("a cipher suite list of " + suitesLength + " B");
      }
      if (suitesLength > b.remaining()) {
        throw new Truncated("cipher suites");
      }
      List<Integer> suites = new ArrayList<>(suitesLength / 2);
      for (int i = 0; i < suitesLength; i += 2) {
        suites.add(b.getShort() & 0xffff);
      }
      int compressions = b.get() & 0xff;
      if (compressions < 1) {
        return new Invalid("no compression methods");
      }
      skip(b, compressions, "compression methods");
      List<Integer> none = List.of();
      if (!b.hasRemaining()) {
        // No extensions (TLS 1.2 and older may send none).
        return new Parsed(
            null, List.of(), new Offer(version, suites, none, none, none, none, none, List.of()));
      }
      int extensionsLength = b.getShort() & 0xffff;
      if (extensionsLength != b.remaining()) {
        return new Invalid(
            "extensions of " + extensionsLength + " B where " + b.remaining() + " B remain");
      }
      String serverName = null;
      boolean sawServerName = false;
      List<String> protocols = List.of();
      boolean sawAlpn = false;
      List<Integer> extensions = new ArrayList<>();
      List<Integer> groups = none;
      List<Integer> pointFormats = none;
      List<Integer> signatureAlgorithms = none;
      List<Integer> supportedVersions = none;
      while (b.hasRemaining()) {
        int type = b.getShort() & 0xffff;
        int length = b.getShort() & 0xffff;
        if (length > b.remaining()) {
          return new Invalid("extension " + type + " of " + length + " B overruns the ClientHello");
        }
        extensions.add(type);
        ByteBuffer ext = b.slice(b.position(), length);
        b.position(b.position() + length);
        switch (type) {
          case EXT_SERVER_NAME -> {
            if (sawServerName) {
              return new Invalid("two server_name extensions");
            }
            sawServerName = true;
            Object name = serverName(ext);
            if (name instanceof Invalid invalid) {
              return invalid;
            }
            serverName = (String) name;
          }
          case EXT_ALPN -> {
            if (sawAlpn) {
              return new Invalid("two ALPN extensions");
            }
            sawAlpn = true;
            Object offered = protocols(ext);
            if (offered instanceof Invalid invalid) {
              return invalid;
            }
            @SuppressWarnings("unchecked") // protocols() returns a List<String> or an Invalid
            List<String> names = (List<String>) offered;
            protocols = names;
          }
          case EXT_SUPPORTED_GROUPS -> groups = values(ext, 2, 2, "supported_groups");
          case EXT_EC_POINT_FORMATS -> pointFormats = values(ext, 1, 1, "ec_point_formats");
          case EXT_SIGNATURE_ALGORITHMS ->
              signatureAlgorithms = values(ext, 2, 2, "signature_algorithms");
          case EXT_SUPPORTED_VERSIONS ->
              supportedVersions = values(ext, 1, 2, "supported_versions");
          default -> {}
        }
      }
      Offer offer =
          new Offer(
              version,
              suites,
              extensions,
              groups,
              pointFormats,
              signatureAlgorithms,
              supportedVersions,
              protocols);
      return new Parsed(serverName, protocols, offer);
    } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException e) {
      return new Invalid("the ClientHello ends in the middle of a field");
    } catch (Truncated t) {
      return new Invalid("the ClientHello ends in its " + t.getMessage());
    } catch (Malformed m) {
      return new Invalid(m.getMessage());
    }
  }

  /**
   * A list extension's values: a {@code prefixBytes} length, then values of {@code valueBytes}
   * each. A list whose length is not its extension's, or not a whole number of values, is invalid.
   */
  private static List<Integer> values(ByteBuffer ext, int prefixBytes, int valueBytes, String name)
      throws Malformed {
    if (ext.remaining() < prefixBytes) {
      throw new Malformed("an empty " + name + " extension");
    }
    int length = prefixBytes == 1 ? ext.get() & 0xff : ext.getShort() & 0xffff;
    if (length != ext.remaining() || length % valueBytes != 0) {
      throw new Malformed(
          "a " + name + " list of " + length + " B in " + (ext.limit() - prefixBytes) + " B");
    }
    List<Integer> values = new ArrayList<>(length / valueBytes);
    while (ext.hasRemaining()) {
      values.add(valueBytes == 1 ? ext.get() & 0xff : ext.getShort() & 0xffff);
    }
    return List.copyOf(values);
  }

  private static Object serverName(ByteBuffer ext) {
    int listLength = ext.getShort() & 0xffff;
    if (listLength != ext.remaining() || listLength == 0) {
      return new Invalid("a server_name list of " + listLength + " B in " + (ext.limit()) + " B");
    }
    String host = null;
    while (ext.hasRemaining()) {
      int nameType = ext.get() & 0xff;
      int length = ext.getShort() & 0xffff;
      if (length > ext.remaining()) {
        return new Invalid("a server name of " + length + " B overruns its extension");
      }
      byte[] bytes = new byte[length];
      ext.get(bytes);
      if (nameType != 0) {
        continue; // unknown name types are skipped
      }
      if (host != null) {
        return new Invalid("two host names in server_name");
      }
      String name = new String(bytes, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
      if (!isHostName(bytes)) {
        return new Invalid("server name '" + printable(bytes) + "' is not a host name");
      }
      host = name;
    }
    return host;
  }

  private static Object protocols(ByteBuffer ext) {
    int listLength = ext.getShort() & 0xffff;
    if (listLength != ext.remaining() || listLength < 2) {
      return new Invalid("an ALPN list of " + listLength + " B");
    }
    List<String> protocols = new ArrayList<>();
    while (ext.hasRemaining()) {
      int length = ext.get() & 0xff;
      if (length == 0 || length > ext.remaining()) {
        return new Invalid("an ALPN protocol of " + length + " B");
      }
      byte[] bytes = new byte[length];
      ext.get(bytes);
      protocols.add(new String(bytes, StandardCharsets.ISO_8859_1));
    }
    return List.copyOf(protocols);
  }

  private static boolean isHostName(byte[] name) {
    if (name.length == 0 || name.length > 253 || name[0] == '.' || name[name.length - 1] == '.') {
      return false;
    }
    int label = 0;
    for (byte c : name) {
      if (c == '.') {
        if (label == 0) {
          return false;
        }
        label = 0;
        continue;
      }
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!ok || ++label > 63) {
        return false;
      }
    }
    return true;
  }

  private static String printable(byte[] bytes) {
    StringBuilder s = new StringBuilder();
    for (byte b : bytes) {
      s.append(b >= 0x20 && b < 0x7f ? (char) b : '?');
      if (s.length() > 80) {
        return s.append("...").toString();
      }
    }
    return s.toString();
  }

  private static void skip(ByteBuffer b, int n, String what) throws Truncated {
    if (n > b.remaining()) {
      throw new Truncated(what);
    }
    b.position(b.position() + n);
  }

  /** A list extension that is not a whole list: the reason. */
  private static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String reason) {
      super(reason, null, false, false);
    }
  }

  private static final class Truncated extends Exception {
    private static final long serialVersionUID = 1L;

    Truncated(String field) {
      super(field, null, false, false);
    }
  }
}
