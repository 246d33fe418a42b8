package dev.sluice.testing;

/** Where a payload lives: the two kinds of buffer the write path treats differently. */
public enum BufferKind {
  /** A heap array, which the transport must write in bounded slices through its staging buffer. */
  HEAP,
  /** Native memory, which the transport hands to the socket as it is. */
  DIRECT
}
