package dev.sluice.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.memory.BorrowedBytes;
import dev.sluice.memory.Chunk;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReadSlabTest {
  private static final int SLAB = 64 * 1024;

  private SlabPool pool;
  private ReadSlab slab;

  @BeforeEach
  void setUp() {
    pool = new SlabPool(SLAB, 2, new MemoryCounters(), Runnable::run);
    pool.bindToCurrentThread();
    slab = new ReadSlab(pool, 1024);
  }

  @AfterEach
  void tearDown() {
    slab.close();
    pool.close();
  }

  @Test
  void theLentBufferAndEveryViewOfItsMemoryAreLent() {
    BorrowedBytes read = read(SLAB);
    ByteBuffer lent = read.buffer();
    ByteBuffer lastByte = lent.slice(SLAB - 1, 1);

    assertThat(slab.lends(lent)).isTrue();
    assertThat(slab.lends(lent.slice())).isTrue();
    assertThat(slab.lends(lent.duplicate())).isTrue();
    assertThat(slab.lends(lent.asReadOnlyBuffer())).isTrue();
    assertThat(slab.lends(lastByte)).as("a view of the slab's last byte").isTrue();
    slab.endBorrow();
  }

  @Test
  void otherMemoryIsNotLent() {
    read(100);
    slab.endBorrow();

    assertThat(slab.lends(ByteBuffer.allocateDirect(SLAB))).isFalse();
    assertThat(slab.lends(ByteBuffer.allocate(SLAB))).isFalse();
  }

  @Test
  void aSlabHandedOffWithARead() {
    BorrowedBytes read = read(SLAB);
    ByteBuffer lent = read.buffer();
    Chunk kept = read.take();
    slab.endBorrow();
    ByteBuffer next = read(10).buffer();

    assertThat(slab.lends(lent.slice()))
        .as("the handed-off slab is the reader's now, and no read lands in it")
        .isFalse();
    assertThat(slab.lends(next.slice())).as("the fresh slab's").isTrue();
    slab.endBorrow();
    kept.release();
  }

  private BorrowedBytes read(int length) {
    slab.prepareRead().put(new byte[length]);
    return slab.borrow(length);
  }
}
