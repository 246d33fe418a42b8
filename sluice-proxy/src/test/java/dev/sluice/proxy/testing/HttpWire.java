package dev.sluice.proxy.testing;

import dev.sluice.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1 by hand on raw sockets, for tests that must know which connection each message travels on:
 * a client of a listener, and heads and Content-Length bodies read off either side.
 */
public final class HttpWire {
  private HttpWire() {}

  /** A client connection to the proxy's listener {@code front}, with the tests' read timeout. */
  public static Socket client(ProxyFixture proxy) throws IOException {
    InetSocketAddress at = (InetSocketAddress) proxy.address("front");
    Socket s = new Socket(InetAddress.getLoopbackAddress(), at.getPort());
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    return s;
  }

  public static void send(Socket s, String text) throws IOException {
    s.getOutputStream().write(bytes(text));
  }

  public static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /** A request head and its Content-Length body, as an upstream got them on {@code s}. */
  public static String readRequest(Socket s) throws IOException {
    s.setSoTimeout((int) Await.PATIENCE.toMillis());
    return readResponse(s.getInputStream());
  }

  /** One message (a head and its Content-Length body, if any). */
  public static String readResponse(InputStream in) throws IOException {
    String head = readHead(in);
    return head + new String(in.readNBytes(contentLength(head)), StandardCharsets.US_ASCII);
  }

  /** A head, up to and including its empty line. */
  public static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    while (matched < 4) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("ended inside a head: " + head);
      }
      head.write(b);
      matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }

  /** Everything up to the end of the stream. */
  public static String readAll(Socket s) throws IOException {
    return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
        return Integer.parseInt(line.substring(15).strip());
      }
    }
    return 0;
  }
}
