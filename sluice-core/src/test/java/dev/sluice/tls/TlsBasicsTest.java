package dev.sluice.tls;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.net.CloseReason;
import dev.sluice.net.Connection;
import dev.sluice.net.EventLoopGroup;
import dev.sluice.net.Listener;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TlsBasicsTest extends TlsTestBase {

  static ByteBuffer ascii(String text) {
    return ByteBuffer.wrap(text.getBytes(StandardCharsets.US_ASCII));
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.2", "TLSv1.3"})
  void echoesAndClosesWithCloseNotify(String protocol) throws Exception {
    EventLoopGroup group = group();
    RecordingHandler server =
        new RecordingHandler() {
          @Override
          void onBytes(Connection connection, byte[] bytes) {
            super.onBytes(connection, bytes);
            connection.write(ByteBuffer.wrap(bytes));
          }
        };
    Listener listener = listen(group, serverConfig().withProtocols(protocol), () -> server);
    RecordingHandler client = new RecordingHandler();
    TlsConnection connection = connect(group, clientConfig(), listener, client);

    assertThat(connection.session().getProtocol()).isEqualTo(protocol);
    var echoed = client.expect(5);
    await(connection.write(ascii("hello")));
    await(echoed);
    assertThat(client.text()).isEqualTo("hello");

    connection.close();
    assertThat(await(client.closed)).isEqualTo(CloseReason.NORMAL);
    await(server.endOfInput);
    assertThat(await(server.closed)).isEqualTo(CloseReason.NORMAL);
    assertThat(awaitQuiet(group)).matches(TlsTestBase::quiet);
  }
}
