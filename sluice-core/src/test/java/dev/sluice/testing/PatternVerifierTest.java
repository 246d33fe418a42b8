package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PatternVerifierTest {
  private static final PayloadPattern PATTERN = PayloadPattern.DEFAULT;
  private static final int LENGTH = 5 * PayloadPattern.BLOCK + 123;

  @Test
  void acceptsTheStreamCutAtAnyPoints() {
    byte[] stream = PATTERN.bytes(0, LENGTH);
    Random random = new Random(7);
    for (int trial = 0; trial < 50; trial++) {
      PatternVerifier verifier = PATTERN.verifier();
      int at = 0;
      while (at < LENGTH) {
        int n = Math.min(LENGTH - at, 1 + random.nextInt(3 * PayloadPattern.BLOCK));
        assertThat(verifier.update(ByteBuffer.wrap(stream, at, n))).isTrue();
        at += n;
      }
      assertThat(verifier.finish(LENGTH)).isTrue();
    }
  }

  @Test
  void fillAndByteAtAgreeAndEachBlockCarriesItsOffset() {
    ByteBuffer direct = ByteBuffer.allocateDirect(LENGTH);
    PATTERN.fill(direct, 0);
    for (int i = 0; i < LENGTH; i++) {
      assertThat(direct.get(i)).isEqualTo(PATTERN.byteAt(i));
    }
    assertThat(direct.getLong(3 * PayloadPattern.BLOCK)).isEqualTo(3L * PayloadPattern.BLOCK);
  }

  @Test
  void aStreamFromAnOffsetMatchesTheSameBytesOfTheWholeStream() {
    byte[] whole = PATTERN.bytes(0, LENGTH);
    byte[] tail = PATTERN.bytes(4000, LENGTH - 4000);
    assertThat(tail).isEqualTo(java.util.Arrays.copyOfRange(whole, 4000, LENGTH));
    assertThat(PATTERN.verifier(4000).update(ByteBuffer.wrap(tail))).isTrue();
  }

  /** Offsets in a stamp, in the filler, at block edges, first and last byte. */
  @ParameterizedTest
  @ValueSource(ints = {0, 3, 7, 8, 9, 2000, 4095, 4096, 4100, 8191, LENGTH - 1})
  void aSingleCorruptedByteFailsAtItsOffset(int offset) {
    byte[] stream = PATTERN.bytes(0, LENGTH);
    stream[offset] ^= 0x01;
    PatternVerifier verifier = PATTERN.verifier();
    verifier.update(ByteBuffer.wrap(stream, 0, 1000));
    verifier.update(ByteBuffer.wrap(stream, 1000, LENGTH - 1000));
    assertThat(verifier.finish(LENGTH)).isFalse();
    assertThat(verifier.failure()).startsWith("wrong byte at stream offset " + offset + ":");
  }

  @Test
  void streamsOfDifferentSeedsAreToldApart() {
    byte[] other = new PayloadPattern(1).bytes(0, LENGTH);
    assertThat(PATTERN.verifier().update(ByteBuffer.wrap(other))).isFalse();
  }

  @Test
  void aMissingByteIsCaught() {
    byte[] stream = PATTERN.bytes(0, LENGTH);
    PatternVerifier verifier = PATTERN.verifier();
    verifier.update(ByteBuffer.wrap(stream, 0, 5000));
    verifier.update(ByteBuffer.wrap(stream, 5001, LENGTH - 5001));
    assertThat(verifier.ok()).isFalse();
  }

  @Test
  void aRepeatedBlockIsCaughtEvenThoughItsFillerMatches() {
    byte[] first = PATTERN.bytes(0, PayloadPattern.BLOCK);
    PatternVerifier verifier = PATTERN.verifier();
    verifier.update(ByteBuffer.wrap(first));
    assertThat(verifier.update(ByteBuffer.wrap(first))).isFalse();
    // The stamps 0 and 4096 first differ in their seventh byte (0x00 vs 0x10).
    assertThat(verifier.failure()).contains("offset 4102");
  }

  @Test
  void aShortOrLongStreamFailsAtTheEnd() {
    PatternVerifier shortStream = PATTERN.verifier();
    shortStream.update(ByteBuffer.wrap(PATTERN.bytes(0, 100)));
    assertThat(shortStream.finish(101)).isFalse();
    assertThat(shortStream.failure()).contains("received 100 bytes, expected 101");

    PatternVerifier longStream = PATTERN.verifier();
    longStream.update(ByteBuffer.wrap(PATTERN.bytes(0, 102)));
    assertThat(longStream.finish(101)).isFalse();
  }

  @Test
  void sha256SeesASingleFlippedBit() {
    ByteBuffer payload = ByteBuffer.wrap(PATTERN.bytes(0, LENGTH));
    String before = Sha256.hex(payload);
    payload.put(LENGTH / 2, (byte) (payload.get(LENGTH / 2) ^ 0x40));
    assertThat(Sha256.hex(payload)).isNotEqualTo(before).hasSize(64);
  }
}
