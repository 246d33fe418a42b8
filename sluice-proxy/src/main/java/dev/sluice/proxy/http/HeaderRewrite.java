package dev.sluice.proxy.http;

/**
 * A listener's header rewriting: what the upstream is told about the client, and the configured
 * edits of requests and responses.
 */
public record HeaderRewrite(ForwardedFor forwardedFor, HeaderEdits request, HeaderEdits response) {
  /** The default: X-Forwarded-* replaced, nothing else edited. */
  public static final HeaderRewrite DEFAULT =
      new HeaderRewrite(ForwardedFor.REPLACE, HeaderEdits.NONE, HeaderEdits.NONE);
}
