package dev.sluice.proxy.service;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where {@code $NOTIFY_SOCKET} says the service manager listens: a Unix datagram socket named by an
 * absolute path, or by an abstract name written with a leading {@code @} (the name's first byte is
 * then a zero in {@code sun_path}).
 *
 * @param text the variable as given
 * @param sunPath the bytes of {@code sun_path}: the path and its terminating zero, or a zero and
 *     the abstract name (no terminator: every byte counts)
 */
public record NotifyAddress(String text, byte[] sunPath) {
  /** The size of {@code sun_path} in Linux's {@code struct sockaddr_un}. */
  static final int SUN_PATH_SIZE = 108;

  public NotifyAddress {
    sunPath = sunPath.clone();
  }

  /**
   * Parses {@code text}.
   *
   * @throws IllegalArgumentException naming what is wrong: empty, neither absolute nor abstract
   *     (such as {@code vsock:}, which newer service managers use in virtual machines), or longer
   *     than {@code sun_path} holds
   */
  public static NotifyAddress parse(String text) {
    if (text.isEmpty()) {
      throw new IllegalArgumentException("it is empty");
    }
    byte[] name = text.getBytes(StandardCharsets.UTF_8);
    byte[] sunPath;
    if (text.startsWith("@")) {
      sunPath = name.clone();
      sunPath[0] = 0;
    } else if (text.startsWith("/")) {
      sunPath = Arrays.copyOf(name, name.length + 1);
    } else {
      throw new IllegalArgumentException(
          "only a Unix socket is supported: an absolute path, or an abstract name starting with @");
    }
    if (sunPath.length > SUN_PATH_SIZE) {
      throw new IllegalArgumentException(
          "it is "
              + name.length
              + " bytes long, more than a Unix socket address holds ("
              + (SUN_PATH_SIZE - 1)
              + " bytes)");
    }
    return new NotifyAddress(text, sunPath);
  }

  /** Whether the name is abstract (no file). */
  public boolean isAbstract() {
    return sunPath[0] == 0;
  }

  @Override
  public byte[] sunPath() {
    return sunPath.clone();
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof NotifyAddress a && Arrays.equals(sunPath, a.sunPath);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(sunPath);
  }

  @Override
  public String toString() {
    return text;
  }
}
