package dev.sluice.bench.integrity;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.PatternVerifier;
import dev.sluice.testing.PayloadPattern;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class CorruptionTest {
  private static final PayloadPattern PATTERN = PayloadPattern.DEFAULT;

  @Test
  void corruptionAppliedByThePeerIsCaught() {
    ByteBuffer chunk = ByteBuffer.allocateDirect(1400);
    PATTERN.fill(chunk, 2800);
    new Corruption(3000).apply(chunk, 2800);
    PatternVerifier verifier = PATTERN.verifier(2800);
    assertThat(verifier.update(chunk)).isFalse();
    assertThat(verifier.failure()).contains("offset 3000");
  }

  @Test
  void corruptionOutsideTheBufferLeavesItAlone() {
    ByteBuffer chunk = ByteBuffer.allocate(100);
    PATTERN.fill(chunk, 0);
    new Corruption(100).apply(chunk, 0);
    Corruption.NONE.apply(chunk, 0);
    assertThat(PATTERN.verifier().update(chunk)).isTrue();
  }
}
