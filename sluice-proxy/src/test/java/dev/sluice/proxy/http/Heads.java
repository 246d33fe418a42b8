package dev.sluice.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Feeding heads to readers the way reads arrive: at an offset in a larger buffer, in pieces. */
final class Heads {
  private Heads() {}

  static final int MAX = 16 * 1024;

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * {@code bytes} between position and limit of a read-only buffer with other bytes before and
   * after them, so a reader that looks outside position..limit or writes is caught.
   */
  static ByteBuffer read(byte[] bytes) {
    ByteBuffer slab = ByteBuffer.allocate(bytes.length + 16);
    for (int i = 0; i < slab.capacity(); i++) {
      slab.put(i, (byte) '\n');
    }
    slab.put(7, bytes);
    return slab.position(7).limit(7 + bytes.length).asReadOnlyBuffer();
  }

  static HeadResult<RequestHead> request(String text) {
    return HeadReader.requests(MAX).offer(read(bytes(text)));
  }

  static HeadResult<ResponseHead> response(String text) {
    return HeadReader.responses(MAX).offer(read(bytes(text)));
  }

  /** Offers {@code bytes} cut at {@code cut}; the first piece must be taken whole. */
  static <H> HeadResult<H> inTwo(HeadReader<H> reader, byte[] bytes, int cut) {
    ByteBuffer first = read(java.util.Arrays.copyOf(bytes, cut));
    HeadResult<H> r = reader.offer(first);
    if (!(r instanceof HeadResult.NeedMore<H>)) {
      return r;
    }
    assertThat(first.position()).isEqualTo(7);
    HeadResult<H> second =
        reader.offer(read(java.util.Arrays.copyOfRange(bytes, cut, bytes.length)));
    if (second instanceof HeadResult.Complete<H>(H head, int consumed)) {
      return new HeadResult.Complete<>(head, consumed + cut); // counted over the whole input
    }
    return second;
  }

  static RequestHead complete(HeadResult<RequestHead> result) {
    assertThat(result).isInstanceOf(HeadResult.Complete.class);
    return ((HeadResult.Complete<RequestHead>) result).head();
  }

  static ResponseHead completeResponse(HeadResult<ResponseHead> result) {
    assertThat(result).isInstanceOf(HeadResult.Complete.class);
    return ((HeadResult.Complete<ResponseHead>) result).head();
  }

  static Refusal refusal(HeadResult<?> result) {
    assertThat(result).isInstanceOf(HeadResult.Refused.class);
    return ((HeadResult.Refused<?>) result).refusal();
  }

  /** Asserts {@code text} is refused with {@code status}; returns the reason. */
  static String refused(String text, int status) {
    Refusal refusal = refusal(request(text));
    assertThat(refusal.status()).as(refusal.reason()).isEqualTo(status);
    return refusal.reason();
  }
}
