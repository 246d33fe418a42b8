package dev.sluice.memory;

import java.nio.ByteBuffer;

/** An exact-size heap copy of a read: the common case for reads up to the copy threshold. */
public final class HeapChunk implements Chunk {
  private final byte[] bytes;

  /** Wraps {@code bytes} without copying; the array must not be shared. */
  public HeapChunk(byte[] bytes) {
    this.bytes = bytes;
  }

  @Override
  public int length() {
    return bytes.length;
  }

  @Override
  public ByteBuffer buffer() {
    return ByteBuffer.wrap(bytes);
  }

  /** The backing array itself, exactly {@link #length()} bytes long. */
  public byte[] bytes() {
    return bytes;
  }

  @Override
  public void release() {
    // Garbage collected: nothing to give back.
  }

  @Override
  public String toString() {
    return "HeapChunk[" + bytes.length + " B]";
  }
}
