package dev.sluice.bench.workload.proxy;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One keep-alive HTTP/1.1 client connection of the {@code httpidle} load client, on a blocking JDK
 * socket: it sends a GET and reads the whole response (a head, then a Content-Length body), and
 * checks it: status 200, not told to close, exactly the upstream's body.
 */
final class HttpConnection implements AutoCloseable {
  /** The longest response head read. */
  private static final int MAX_HEAD = 16 * 1024;

  private static final int READ_TIMEOUT_MS = 120_000;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final byte[] request;

  private HttpConnection(Socket socket, String host) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream(), 1024);
    this.out = socket.getOutputStream();
    this.request =
        ("GET / HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: sluice-bench\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
  }

  /** Connects to {@code address}. */
  static HttpConnection open(InetSocketAddress address) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(READ_TIMEOUT_MS);
      socket.connect(address, READ_TIMEOUT_MS);
      return new HttpConnection(
          socket, address.getAddress().getHostAddress() + ":" + address.getPort());
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * Sends one request and reads its response.
   *
   * @return null when the response was right, else what was wrong with it
   * @throws IOException when the connection failed or closed before the whole response
   */
  String exchange(String expectedBody) throws IOException {
    out.write(request);
    out.flush();
    String head = readHead();
    String[] lines = head.split("\r\n");
    if (!lines[0].startsWith("HTTP/1.1 200 ")) {
      return "status line '" + lines[0] + "'";
    }
    long length = -1;
    boolean close = false;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon <= 0) {
        return "malformed header line '" + lines[i] + "'";
      }
      String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(colon + 1).trim();
      if (name.equals("content-length")) {
        length = Long.parseLong(value);
      } else if (name.equals("connection") && value.equalsIgnoreCase("close")) {
        close = true;
      } else if (name.equals("transfer-encoding")) {
        return "a Transfer-Encoding (" + value + ") where the upstream sends Content-Length";
      }
    }
    if (length < 0) {
      return "no Content-Length";
    }
    byte[] body = in.readNBytes((int) Math.min(length, MAX_HEAD));
    if (body.length != length) {
      throw new EOFException("the connection closed after " + body.length + " of " + length);
    }
    if (!new String(body, StandardCharsets.US_ASCII).equals(expectedBody)) {
      return "a body of " + length + " bytes that is not the upstream's";
    }
    if (close) {
      return "Connection: close on a keep-alive request";
    }
    return null;
  }

  private String readHead() throws IOException {
    byte[] head = new byte[MAX_HEAD];
    int n = 0;
    while (n < 4
        || head[n - 4] != '\r'
        || head[n - 3] != '\n'
        || head[n - 2] != '\r'
        || head[n - 1] != '\n') {
      if (n == MAX_HEAD) {
        throw new IOException("a response head longer than " + MAX_HEAD + " bytes");
      }
      int b = in.read();
      if (b < 0) {
        throw new EOFException("the connection closed after " + n + " bytes of a response head");
      }
      head[n++] = (byte) b;
    }
    return new String(head, 0, n - 4, StandardCharsets.US_ASCII);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
