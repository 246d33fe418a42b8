package dev.sluice.proxy.forward;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.proxy.testing.Commands;
import dev.sluice.proxy.testing.ProxyFixture;
import dev.sluice.testing.FreePorts;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A websocket through an HTTP listener, with Debian's python3-websockets on both ends: the Upgrade
 * request is relayed, the 101 turns the pair into the raw pipe, and frames flow both ways.
 */
class WebsocketThroughProxyTest {
  /** Debian's interpreter, for which the python3-websockets package is installed. */
  private static final String PYTHON = "/usr/bin/python3";

  private static final String SERVER =
      """
      import asyncio, sys, websockets
      async def echo(ws, path=None):
          async for message in ws:
              await ws.send("echo: " + message)
      async def main():
          async with websockets.serve(echo, "127.0.0.1", int(sys.argv[1])):
              print("ready", flush=True)
              await asyncio.sleep(120)
      asyncio.run(main())
      """;

  private static final String CLIENT =
      """
      import asyncio, sys, websockets
      async def main():
          async with websockets.connect(sys.argv[1]) as ws:
              for i in range(3):
                  await ws.send("hello %d" % i)
                  print(await ws.recv(), flush=True)
      asyncio.run(main())
      """;

  @TempDir Path dir;

  @Test
  void aWebsocketEchoesThroughTheHttpListener() throws Exception {
    Path server = Files.writeString(dir.resolve("server.py"), SERVER);
    Path client = Files.writeString(dir.resolve("client.py"), CLIENT);
    int port = FreePorts.loopback();
    Process upstream =
        new ProcessBuilder(PYTHON, server.toString(), Integer.toString(port))
            .redirectErrorStream(true)
            .start();
    try (BufferedReader out =
            new BufferedReader(
                new InputStreamReader(upstream.getInputStream(), StandardCharsets.UTF_8));
        ProxyFixture proxy =
            ProxyFixture.start(
                """
                listeners:
                  - name: web
                    address: 127.0.0.1:0
                    protocol: http
                    cluster: ws
                clusters:
                  - name: ws
                    upstreams: [{address: "127.0.0.1:%d"}]
                """
                    .formatted(port),
                dir)) {
      assertThat(out.readLine()).as("the websocket server starts").isEqualTo("ready");
      int front = ((InetSocketAddress) proxy.address("web")).getPort();
      Commands.Result result =
          Commands.run(List.of(PYTHON, client.toString(), "ws://127.0.0.1:" + front + "/chat"), "");
      assertThat(result.exit()).as(result.output()).isZero();
      assertThat(result.output()).isEqualTo("echo: hello 0\necho: hello 1\necho: hello 2\n");
      Pair pair = proxy.awaitClosed(1).getFirst();
      assertThat(pair.client().bytesRead()).isPositive();
      assertThat(pair.cause()).isIn(CloseCause.CLIENT_EOF, CloseCause.UPSTREAM_EOF);
      // The upgrade is one request, ended by its 101; the tunnel after it is the pair's.
      assertThat(pair.facts().exchanges()).isEqualTo(1);
      assertThat(proxy.listener("web").stats().httpResponses())
          .isEqualTo(java.util.Map.of("ws", java.util.Map.of("1xx", 1L)));
    } finally {
      upstream.destroy();
    }
  }
}
