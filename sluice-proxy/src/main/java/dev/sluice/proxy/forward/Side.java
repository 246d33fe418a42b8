package dev.sluice.proxy.forward;

/** The two legs of a pair. */
public enum Side {
  CLIENT,
  UPSTREAM;

  /** The other leg. */
  public Side other() {
    return this == CLIENT ? UPSTREAM : CLIENT;
  }
}
