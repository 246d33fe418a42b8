package dev.sluice.proxy.http;

/**
 * Why a message was refused: the status the proxy answers with (400, 414, 431, 501 or 505 for a
 * client's request; 502 for an upstream's response) and a reason the access log prints. Every
 * refusal ends the connection it came from: after one, the framing of what follows is unknown.
 */
public record Refusal(int status, String reason) {
  public Refusal {
    if (status < 400 || status > 599) {
      throw new IllegalArgumentException("not an error status: " + status);
    }
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("a refusal needs a reason");
    }
  }
}
