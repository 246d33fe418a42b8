package dev.sluice.testing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * A TLS 1.3 client written by hand, for what a server does with the ClientHello that answers its
 * HelloRetryRequest: no TLS library lets a test choose that hello's server name. The first hello
 * offers P-256 with no key share, so the server must ask again; the second has a P-256 key share
 * and whatever server name the test gives. A blocking socket; it reads plaintext records only (it
 * never derives a key), which is all the server sends before its ServerHello.
 */
public final class HelloRetryClient implements AutoCloseable {
  public static final int ALERT = 21;
  public static final int HANDSHAKE = 22;
  public static final int ILLEGAL_PARAMETER = 47;
  public static final int UNRECOGNIZED_NAME = 112;

  private static final int CHANGE_CIPHER_SPEC = 20;
  private static final int SERVER_HELLO = 2;

  /** The random of a HelloRetryRequest (RFC 8446, section 4.1.3): SHA-256("HelloRetryRequest"). */
  private static final byte[] RETRY_RANDOM =
      HexFormat.of().parseHex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c");

  /** A plaintext record: its content type and body. */
  public record Record(int type, byte[] body) {
    /** A ServerHello or a HelloRetryRequest (which is a ServerHello with a special random). */
    public boolean isServerHello() {
      return type == HANDSHAKE && body.length >= 38 && body[0] == SERVER_HELLO;
    }

    public boolean isRetryRequest() {
      return isServerHello() && Arrays.equals(Arrays.copyOfRange(body, 6, 38), RETRY_RANDOM);
    }
  }

  private final Socket socket = new Socket();
  private final DataInputStream in;
  private final byte[] random = new byte[32];
  private final byte[] sessionId = new byte[32];

  public HelloRetryClient(SocketAddress server, Duration timeout) throws IOException {
    socket.connect(server, (int) timeout.toMillis());
    socket.setSoTimeout((int) timeout.toMillis());
    in = new DataInputStream(socket.getInputStream());
    Arrays.fill(random, (byte) 7);
    Arrays.fill(sessionId, (byte) 9);
  }

  /**
   * Sends the first hello (no key share), asking for {@code serverName} (null: no server_name
   * extension); the server's HelloRetryRequest, or null if its answer was something else.
   */
  public byte[] helloAndRetry(String serverName) throws IOException {
    send(hello(serverName, new byte[0], null));
    Record answer = nextRecord();
    return answer.isRetryRequest() ? answer.body() : null;
  }

  /** Sends the second hello, with a P-256 key share; the server's next record. */
  public Record secondHello(String serverName, byte[] retry) throws Exception {
    send(hello(serverName, keyShare(), cookie(retry)));
    return nextRecord();
  }

  /** The next byte from the server, or -1 once it closed. */
  public int read() throws IOException {
    return in.read();
  }

  /** The next record other than a ChangeCipherSpec (middlebox compatibility, RFC 8446 D.4). */
  private Record nextRecord() throws IOException {
    while (true) {
      int type = in.readUnsignedByte();
      in.readUnsignedShort(); // legacy_record_version
      byte[] body = new byte[in.readUnsignedShort()];
      in.readFully(body);
      if (type != CHANGE_CIPHER_SPEC) {
        return new Record(type, body);
      }
    }
  }

  private void send(byte[] handshake) throws IOException {
    ByteArrayOutputStream record = new ByteArrayOutputStream();
    record.write(HANDSHAKE);
    record.write(3);
    record.write(1);
    u16(record, handshake.length);
    record.writeBytes(handshake);
    socket.getOutputStream().write(record.toByteArray());
  }

  private byte[] hello(String serverName, byte[] keyShareEntry, byte[] cookie) {
    ByteArrayOutputStream extensions = new ByteArrayOutputStream();
    if (serverName != null) {
      byte[] host = serverName.getBytes(StandardCharsets.US_ASCII);
      ByteArrayOutputStream list = new ByteArrayOutputStream();
      list.write(0); // host_name
      u16(list, host.length);
      list.writeBytes(host);
      extension(extensions, 0, vector16(list.toByteArray()));
    }
    extension(extensions, 43, new byte[] {2, 3, 4}); // supported_versions: TLS 1.3
    extension(extensions, 10, new byte[] {0, 2, 0, 23}); // supported_groups: secp256r1
    extension(
        extensions,
        13, // signature_algorithms: rsa_pss_rsae_sha256, ecdsa_secp256r1_sha256
        new byte[] {0, 4, 8, 4, 4, 3});
    extension(extensions, 51, vector16(keyShareEntry)); // key_share
    if (cookie != null) {
      extension(extensions, 44, cookie);
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.write(3); // legacy_version TLS 1.2
    body.write(3);
    body.writeBytes(random);
    body.write(sessionId.length);
    body.writeBytes(sessionId);
    body.writeBytes(new byte[] {0, 2, 0x13, 0x01}); // TLS_AES_128_GCM_SHA256
    body.writeBytes(new byte[] {1, 0}); // no compression
    body.writeBytes(vector16(extensions.toByteArray()));
    ByteArrayOutputStream message = new ByteArrayOutputStream();
    message.write(1); // client_hello
    message.write(0);
    u16(message, body.size());
    message.writeBytes(body.toByteArray());
    return message.toByteArray();
  }

  /** A key_share entry for secp256r1: the uncompressed point of a fresh key. */
  private static byte[] keyShare() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    ECPublicKey key = (ECPublicKey) generator.generateKeyPair().getPublic();
    ByteArrayOutputStream point = new ByteArrayOutputStream();
    point.write(4);
    point.writeBytes(coordinate(key.getW().getAffineX().toByteArray()));
    point.writeBytes(coordinate(key.getW().getAffineY().toByteArray()));
    ByteArrayOutputStream entry = new ByteArrayOutputStream();
    u16(entry, 23);
    entry.writeBytes(vector16(point.toByteArray()));
    return entry.toByteArray();
  }

  /** A coordinate as exactly 32 bytes (BigInteger's form has a sign byte or fewer bytes). */
  private static byte[] coordinate(byte[] bigEndian) {
    byte[] out = new byte[32];
    int length = Math.min(bigEndian.length, 32);
    System.arraycopy(bigEndian, bigEndian.length - length, out, 32 - length, length);
    return out;
  }

  /** The cookie extension's data from a HelloRetryRequest, to echo; null if it has none. */
  private static byte[] cookie(byte[] retry) throws IOException {
    DataInputStream body = new DataInputStream(new ByteArrayInputStream(retry));
    body.skipNBytes(4 + 2 + 32); // header, legacy_version, random
    body.skipNBytes(body.readUnsignedByte()); // legacy_session_id_echo
    body.skipNBytes(3); // cipher_suite, legacy_compression_method
    int remaining = body.readUnsignedShort();
    while (remaining > 0) {
      int type = body.readUnsignedShort();
      byte[] data = new byte[body.readUnsignedShort()];
      body.readFully(data);
      remaining -= 4 + data.length;
      if (type == 44) {
        return data;
      }
    }
    return null;
  }

  private static void extension(ByteArrayOutputStream out, int type, byte[] data) {
    u16(out, type);
    u16(out, data.length);
    out.writeBytes(data);
  }

  private static byte[] vector16(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    u16(out, data.length);
    out.writeBytes(data);
    return out.toByteArray();
  }

  private static void u16(ByteArrayOutputStream out, int value) {
    out.write(value >>> 8);
    out.write(value);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
