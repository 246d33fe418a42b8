package dev.sluice.proxy.http;

/** The HTTP/1 versions spoken; a later HTTP/1 minor version is read as 1.1 (RFC 9110 §2.5). */
public enum HttpVersion {
  HTTP_1_0("HTTP/1.0"),
  HTTP_1_1("HTTP/1.1");

  private final String text;

  HttpVersion(String text) {
    this.text = text;
  }

  /** As written in a start line. */
  public String text() {
    return text;
  }
}
