package dev.sluice.net;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.Chunk;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void echoesOverLoopback() throws Exception {
    try (EventLoopGroup group = new EventLoopGroup(TransportConfig.defaults().withEventLoops(2))) {
      Listener listener =
          group.listen(
              new InetSocketAddress("127.0.0.1", 0),
              SocketOptions.defaults(),
              () ->
                  (c, chunk) -> {
                    c.write(chunk.buffer());
                  });
      CompletableFuture<String> got = new CompletableFuture<>();
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      Connection client =
          group
              .connect(
                  listener.localAddress(),
                  SocketOptions.defaults(),
                  new ConnectionHandler() {
                    @Override
                    public void onRead(Connection c, Chunk chunk) {
                      received.writeBytes(chunk.buffer().array());
                      if (received.size() == 5) {
                        got.complete(received.toString(StandardCharsets.UTF_8));
                      }
                    }
                  })
              .get(5, TimeUnit.SECONDS);
      client
          .write(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)))
          .get(5, TimeUnit.SECONDS);
      assertThat(got.get(5, TimeUnit.SECONDS)).isEqualTo("hello");
      listener.close();
    }
  }
}
