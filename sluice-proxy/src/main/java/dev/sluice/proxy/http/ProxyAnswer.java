package dev.sluice.proxy.http;

import java.nio.charset.StandardCharsets;

/**
 * The responses the proxy answers itself (400, 405, 408, 414, 431, 501, 502, 503, 504, 505): a
 * short plain-text body naming the status, never the refusal's reason (that is for the access log,
 * not for a client probing the proxy), and {@code Connection: close} when the connection ends after
 * it.
 */
public final class ProxyAnswer {
  private ProxyAnswer() {}

  /** The whole response, exact size. */
  public static byte[] of(int status, boolean close) {
    String phrase = phrase(status);
    String body = status + " " + phrase + "\n";
    String head =
        "HTTP/1.1 "
            + status
            + " "
            + phrase
            + "\r\nContent-Type: text/plain\r\nContent-Length: "
            + body.length()
            + (close ? "\r\nConnection: close" : "")
            + "\r\n\r\n";
    return (head + body).getBytes(StandardCharsets.US_ASCII);
  }

  static String phrase(int status) {
    return switch (status) {
      case 400 -> "Bad Request";
      case 405 -> "Method Not Allowed";
      case 408 -> "Request Timeout";
      case 414 -> "URI Too Long";
      case 431 -> "Request Header Fields Too Large";
      case 501 -> "Not Implemented";
      case 502 -> "Bad Gateway";
      case 503 -> "Service Unavailable";
      case 504 -> "Gateway Timeout";
      case 505 -> "HTTP Version Not Supported";
      default -> throw new IllegalArgumentException("not a status the proxy answers: " + status);
    };
  }
}
