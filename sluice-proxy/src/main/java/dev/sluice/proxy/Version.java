package dev.sluice.proxy;

/** Sluice's version, as the CLI, the status page and the metrics report it. */
public final class Version {
  /** The release. */
  public static final String NUMBER = "0.1.0";

  private Version() {}
}
