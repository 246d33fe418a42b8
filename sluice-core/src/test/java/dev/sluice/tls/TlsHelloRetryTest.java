package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.net.CloseReason;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A TLS 1.3 client answered with a HelloRetryRequest must send the same ClientHello again, with
 * only its key share (and cookie) changed (RFC 8446, section 4.1.2). One that asks for another
 * server name the second time would otherwise be routed, fingerprinted and logged by its first
 * hello while its handshake, certificate and session follow the second: it is refused, by OpenSSL's
 * ClientHello callback with illegal_parameter, and on the JDK engine (whose SNI matcher is called
 * for a hello's name only) with unrecognized_name when the name changes. The client here is written
 * by hand, as no TLS library sends such a hello: the first hello offers P-256 with no key share, so
 * the server must ask again.
 */
class TlsHelloRetryTest extends TlsTestBase {
  /** The random of a HelloRetryRequest (RFC 8446, section 4.1.3): SHA-256("HelloRetryRequest"). */
  private static final byte[] RETRY_RANDOM =
      HexFormat.of().parseHex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c");

  private static final int HANDSHAKE = 22;
  private static final int ALERT = 21;
  private static final int CHANGE_CIPHER_SPEC = 20;
  private static final int ILLEGAL_PARAMETER = 47;
  private static final int UNRECOGNIZED_NAME = 112;
  private static final String JDK_SEES_NAMES_ONLY =
      "the JDK engine shows Sluice a hello's server name, not a hello without one";

  private final BlockingQueue<RecordingHandler> accepted = new LinkedBlockingQueue<>();
  private Listener listener;

  @BeforeEach
  void start() throws Exception {
    EventLoopGroup group = group();
    KeyMaterial other = KeyMaterial.fromPem(pki.otherCert, pki.otherKey);
    listener =
        listen(
            group,
            serverConfig().withServerName("other.test", other),
            () -> {
              RecordingHandler handler = new RecordingHandler();
              accepted.add(handler);
              return handler;
            });
  }

  @Test
  void theSameHelloAgainGoesOn() throws Exception {
    try (Hellos client = new Hellos()) {
      byte[] retry = client.helloAndRetry("localhost");
      assertThat(retry).as("a HelloRetryRequest").isNotNull();
      Record answer = client.secondHello("localhost", retry);
      assertThat(answer.type()).as("the record after the second hello").isEqualTo(HANDSHAKE);
      assertThat(answer.body()[0]).as("a ServerHello").isEqualTo((byte) 2);
      assertThat(Arrays.copyOfRange(answer.body(), 6, 38))
          .as("a ServerHello, not a second HelloRetryRequest")
          .isNotEqualTo(RETRY_RANDOM);
    }
  }

  @Test
  void anotherServerNameInTheSecondHelloIsRefused() throws Exception {
    assertRefused("localhost", "other.test");
  }

  @Test
  void aServerNameDroppedInTheSecondHelloIsRefusedOnOpenSsl() throws Exception {
    assumeTrue(engine() == TlsEngineKind.OPENSSL, JDK_SEES_NAMES_ONLY);
    assertRefused("other.test", null);
  }

  @Test
  void aServerNameAddedInTheSecondHelloIsRefusedOnOpenSsl() throws Exception {
    assumeTrue(engine() == TlsEngineKind.OPENSSL, JDK_SEES_NAMES_ONLY);
    assertRefused(null, "other.test");
  }

  private void assertRefused(String first, String second) throws Exception {
    try (Hellos client = new Hellos()) {
      byte[] retry = client.helloAndRetry(first);
      assertThat(retry).as("a HelloRetryRequest").isNotNull();
      Record answer = client.secondHello(second, retry);
      assertThat(answer.type()).as("an alert, not the handshake going on").isEqualTo(ALERT);
      assertThat(answer.body())
          .as("a fatal alert: illegal_parameter (OpenSSL), unrecognized_name (the JDK)")
          .containsExactly(
              2, engine() == TlsEngineKind.JDK ? UNRECOGNIZED_NAME : ILLEGAL_PARAMETER);
      assertThat(client.in.read()).as("the server closes after its alert").isEqualTo(-1);
    }
    RecordingHandler handler = accepted.poll(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertThat(handler).isNotNull();
    CloseReason reason = await(handler.handshakeFailed());
    assertThat(reason).isInstanceOf(CloseReason.TlsFailure.class);
    assertThat(((CloseReason.TlsFailure) reason).kind())
        .isEqualTo(CloseReason.TlsFailure.Kind.HANDSHAKE_FAILED);
    assertThat(reason.toString())
        .contains(engineSays("Unrecognized server name", "after a HelloRetryRequest"));
  }

  private record Record(int type, byte[] body) {}

  /** A blocking socket that sends hand-made TLS 1.3 ClientHellos and reads plaintext records. */
  private final class Hellos implements AutoCloseable {
    private final Socket socket = new Socket();
    private final byte[] random = new byte[32];
    private final byte[] sessionId = new byte[32];
    private final DataInputStream in;

    Hellos() throws IOException {
      socket.connect(listener.localAddress(), 10_000);
      socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS));
      in = new DataInputStream(socket.getInputStream());
      Arrays.fill(random, (byte) 7);
      Arrays.fill(sessionId, (byte) 9);
    }

    /** Sends the first hello (no key share); the HelloRetryRequest's body, or null if not one. */
    byte[] helloAndRetry(String serverName) throws IOException {
      send(hello(serverName, new byte[0], null));
      Record answer = nextRecord();
      if (answer.type() != HANDSHAKE
          || answer.body()[0] != 2
          || !Arrays.equals(Arrays.copyOfRange(answer.body(), 6, 38), RETRY_RANDOM)) {
        return null;
      }
      return answer.body();
    }

    /** Sends the second hello with a P-256 key share; the server's next record. */
    Record secondHello(String serverName, byte[] retry) throws Exception {
      send(hello(serverName, keyShare(), cookie(retry)));
      return nextRecord();
    }

    /** The next record other than a ChangeCipherSpec (middlebox compatibility, RFC 8446 D.4). */
    private Record nextRecord() throws IOException {
      while (true) {
        int type = in.readUnsignedByte();
        in.readUnsignedShort();
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
      body.write(3);
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
      point.writeBytes(fixed(key.getW().getAffineX().toByteArray()));
      point.writeBytes(fixed(key.getW().getAffineY().toByteArray()));
      ByteArrayOutputStream entry = new ByteArrayOutputStream();
      u16(entry, 23);
      entry.writeBytes(vector16(point.toByteArray()));
      return entry.toByteArray();
    }

    /** A coordinate as exactly 32 bytes (BigInteger's form has a sign byte or fewer bytes). */
    private static byte[] fixed(byte[] coordinate) {
      byte[] out = new byte[32];
      int length = Math.min(coordinate.length, 32);
      System.arraycopy(coordinate, coordinate.length - length, out, 32 - length, length);
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

    @Override
    public void close() throws IOException {
      socket.close();
    }
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
}
