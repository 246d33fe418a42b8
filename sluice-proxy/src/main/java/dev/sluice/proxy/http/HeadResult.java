package dev.sluice.proxy.http;

/** What a {@link HeadReader} made of the bytes it was offered. */
public sealed interface HeadResult<H>
    permits HeadResult.Complete, HeadResult.NeedMore, HeadResult.Refused {

  /**
   * A whole head. {@code consumed} bytes of the offered buffer (from its position) were the head's
   * (and any empty lines before a request line); what follows is the body or the next message.
   */
  record Complete<H>(H head, int consumed) implements HeadResult<H> {}

  /**
   * Every byte offered was taken and the head is not complete yet: the reader holds the part read
   * so far (an exact-size copy), or nothing when the bytes were only empty lines.
   */
  record NeedMore<H>() implements HeadResult<H> {}

  /** Not a valid head: answer {@link Refusal#status()} and close. */
  record Refused<H>(Refusal refusal) implements HeadResult<H> {
    public int status() {
      return refusal.status();
    }

    public String reason() {
      return refusal.reason();
    }
  }
}
