package dev.sluice.testing;

/** One end of a test connection, for tests that run an action from either end. */
public enum End {
  /** The end that connected. */
  CLIENT,
  /** The end the listener accepted. */
  SERVER
}
