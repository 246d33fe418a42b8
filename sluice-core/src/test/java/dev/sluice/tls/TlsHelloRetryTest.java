package dev.sluice.tls;

import static dev.sluice.testing.HelloRetryClient.ALERT;
import static dev.sluice.testing.HelloRetryClient.ILLEGAL_PARAMETER;
import static dev.sluice.testing.HelloRetryClient.UNRECOGNIZED_NAME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.net.CloseReason;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import dev.sluice.testing.HelloRetryClient;
import dev.sluice.testing.RecordingHandler;
import dev.sluice.testing.TlsTestBase;
import java.time.Duration;
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
 * for a hello's name only) with unrecognized_name when the name changes.
 */
class TlsHelloRetryTest extends TlsTestBase {
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

  private HelloRetryClient client() throws Exception {
    return new HelloRetryClient(listener.localAddress(), Duration.ofSeconds(TIMEOUT_SECONDS));
  }

  @Test
  void theSameHelloAgainGoesOn() throws Exception {
    try (HelloRetryClient client = client()) {
      byte[] retry = client.helloAndRetry("localhost");
      assertThat(retry).as("a HelloRetryRequest").isNotNull();
      HelloRetryClient.Record answer = client.secondHello("localhost", retry);
      assertThat(answer.isServerHello()).as("a ServerHello after the second hello").isTrue();
      assertThat(answer.isRetryRequest()).as("not a second HelloRetryRequest").isFalse();
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
    try (HelloRetryClient client = client()) {
      byte[] retry = client.helloAndRetry(first);
      assertThat(retry).as("a HelloRetryRequest").isNotNull();
      HelloRetryClient.Record answer = client.secondHello(second, retry);
      if (onBoringSsl()) {
        // BoringSSL decides everything on the first hello (its certificate callback runs once)
        // and ignores the second's name: the certificate, route and fingerprint stay the first
        // name's, so no other name's certificate is handed out. The handshake goes on.
        assertThat(answer.isServerHello()).as("BoringSSL answers on the first hello").isTrue();
        return;
      }
      assertThat(answer.type()).as("an alert, not the handshake going on").isEqualTo(ALERT);
      assertThat(answer.body())
          .as("a fatal alert: illegal_parameter (OpenSSL), unrecognized_name (the JDK)")
          .containsExactly(
              2, engine() == TlsEngineKind.JDK ? UNRECOGNIZED_NAME : ILLEGAL_PARAMETER);
      assertThat(client.read()).as("the server closes after its alert").isEqualTo(-1);
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
}
