package dev.sluice.memory;

/**
 * A read larger than the copy threshold, handed over without a copy: the chunk owns the whole read
 * slab until {@link #release()}, which returns it to its loop (from any thread, also after the loop
 * stopped). It wastes at most slab size minus copy threshold.
 */
public sealed interface SlabChunk extends Chunk permits dev.sluice.internal.HandedOffSlab {

  /** The size of the slab this chunk keeps alive, in bytes. */
  int slabSize();
}
