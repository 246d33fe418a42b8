package dev.sluice.bench.integrity;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 helpers for whole-payload integrity (the big write). */
public final class Sha256 {
  private Sha256() {}

  /** A fresh SHA-256 digest. */
  public static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The hex SHA-256 of {@code data} between position and limit; the buffer is not moved. */
  public static String hex(ByteBuffer data) {
    MessageDigest digest = digest();
    digest.update(data.duplicate());
    return HexFormat.of().formatHex(digest.digest());
  }

  /** The hex form of a finished digest. */
  public static String hex(MessageDigest digest) {
    return HexFormat.of().formatHex(digest.digest());
  }
}
