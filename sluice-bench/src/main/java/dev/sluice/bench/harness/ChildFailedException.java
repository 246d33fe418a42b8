package dev.sluice.bench.harness;

import java.io.Serial;

/** A child JVM failed, exited early, broke the protocol or timed out. */
public final class ChildFailedException extends RuntimeException {
  @Serial private static final long serialVersionUID = 1L;

  /** With a message that names the child and includes the end of its stderr. */
  public ChildFailedException(String message) {
    super(message);
  }
}
