package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class PayloadPatternTest {
  private final PayloadPattern pattern = new PayloadPattern(42);

  @Test
  void everyBlockStartsWithItsOffset() {
    ByteBuffer stream = ByteBuffer.allocate(5 * PayloadPattern.BLOCK + 17);
    pattern.fill(stream, 0);
    for (int block = 0; block * PayloadPattern.BLOCK < stream.capacity() - 8; block++) {
      assertThat(stream.getLong(block * PayloadPattern.BLOCK))
          .isEqualTo((long) block * PayloadPattern.BLOCK);
    }
  }

  @Test
  void fillingInRandomPiecesGivesTheSameStreamAsOneFill() {
    int size = 300_001;
    ByteBuffer whole = ByteBuffer.allocate(size);
    pattern.fill(whole, 0);
    ByteBuffer pieced = ByteBuffer.allocateDirect(size);
    Random random = new Random(7);
    for (int at = 0; at < size; ) {
      int n = Math.min(size - at, 1 + random.nextInt(9_000));
      pattern.fill(pieced.duplicate().position(at).limit(at + n), at);
      at += n;
    }
    assertThat(pieced.clear()).isEqualTo(whole.clear());
    for (int i = 0; i < size; i += 997) {
      assertThat(whole.get(i)).isEqualTo(pattern.byteAt(i));
    }
  }

  @Test
  void streamedDigestMatchesTheDigestOfTheBytes() {
    int size = 1_000_003;
    ByteBuffer bytes = ByteBuffer.allocate(size);
    pattern.fill(bytes, 0);
    MessageDigest digest = Sha256.newDigest();
    digest.update(bytes.array());
    assertThat(pattern.sha256(size)).isEqualTo(Sha256.hex(digest));
  }

  @Test
  void reorderingTwoBlocksChangesTheDigest() {
    int size = 8 * PayloadPattern.BLOCK;
    byte[] bytes = new byte[size];
    pattern.fill(ByteBuffer.wrap(bytes), 0);
    byte[] swapped = bytes.clone();
    System.arraycopy(bytes, 2 * 4096, swapped, 5 * 4096, 4096);
    System.arraycopy(bytes, 5 * 4096, swapped, 2 * 4096, 4096);
    assertThat(digest(swapped)).isNotEqualTo(digest(bytes)).isNotEqualTo(pattern.sha256(size));
    assertThat(digest(bytes)).isEqualTo(pattern.sha256(size));
  }

  @Test
  void seedsGiveDifferentStreams() {
    assertThat(new PayloadPattern(1).sha256(10_000))
        .isNotEqualTo(new PayloadPattern(2).sha256(10_000));
  }

  @ParameterizedTest
  @EnumSource(BufferKind.class)
  void payloadHoldsThePatternAndItsPiecesCoverItInOrder(BufferKind kind) {
    try (Payload payload = pattern.newPayload(kind, 100_000)) {
      assertThat(payload.isDirect()).isEqualTo(kind == BufferKind.DIRECT);
      MessageDigest whole = Sha256.newDigest();
      whole.update(payload.buffer());
      assertThat(Sha256.hex(whole)).isEqualTo(payload.sha256());

      MessageDigest pieced = Sha256.newDigest();
      ByteBuffer[] pieces = payload.pieces(4);
      assertThat(pieces).hasSize(4);
      for (ByteBuffer piece : pieces) {
        assertThat(piece.remaining()).isPositive();
        pieced.update(piece);
      }
      assertThat(Sha256.hex(pieced)).isEqualTo(payload.sha256());
    }
  }

  @Test
  void aOneBytePayloadIsOnePiece() {
    try (Payload payload = pattern.newPayload(BufferKind.HEAP, 1)) {
      assertThat(payload.pieces(4)).hasSize(1);
      assertThat(payload.buffer().get(0)).isEqualTo(pattern.byteAt(0));
    }
  }

  private static String digest(byte[] bytes) {
    MessageDigest digest = Sha256.newDigest();
    digest.update(bytes);
    return Sha256.hex(digest);
  }
}
