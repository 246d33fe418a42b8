package dev.sluice.proxy.route;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The fingerprints' digests, cloned from one made at start: cheaper per ClientHello than a provider
 * look-up each time (a digest is not thread-safe, so each use gets its own).
 */
final class Digests {
  private static final MessageDigest MD5 = make("MD5");
  private static final MessageDigest SHA_256 = make("SHA-256");

  private Digests() {}

  static MessageDigest md5() {
    return copy(MD5);
  }

  static MessageDigest sha256() {
    return copy(SHA_256);
  }

  private static MessageDigest make(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has " + algorithm, e);
    }
  }

  private static MessageDigest copy(MessageDigest prototype) {
    try {
      return (MessageDigest) prototype.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException(prototype.getAlgorithm() + " cannot be cloned", e);
    }
  }
}
