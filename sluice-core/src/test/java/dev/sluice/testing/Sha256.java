package dev.sluice.testing;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests as hex strings, so that a mismatch reads well in an assertion or a report. */
public final class Sha256 {
  private Sha256() {}

  /** A fresh SHA-256 digest. */
  public static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Finishes {@code digest} and returns it as lower-case hex. */
  public static String hex(MessageDigest digest) {
    return HexFormat.of().formatHex(digest.digest());
  }

  /** The hex SHA-256 of {@code data} between position and limit; the buffer is not moved. */
  public static String hex(ByteBuffer data) {
    MessageDigest digest = newDigest();
    digest.update(data.duplicate());
    return hex(digest);
  }
}
