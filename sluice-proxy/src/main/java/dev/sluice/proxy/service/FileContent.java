package dev.sluice.proxy.service;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What a watched file holds, as far as a reload is concerned: whether it changed is decided by
 * this, never by which names an event mentioned, so a swap that publishes the same bytes again is
 * no change and a change behind any number of links is one.
 */
sealed interface FileContent {
  /** The file reads as these bytes (their SHA-256). */
  record Digest(String sha256) implements FileContent {}

  /** No file at the path (deleted, or a link that points nowhere). */
  record Missing() implements FileContent {}

  /** The path cannot be read; a reload will say why. */
  record Unreadable(String reason) implements FileContent {}

  /** Reads {@code file}, through any links. */
  static FileContent of(Path file) {
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    try (InputStream in = Files.newInputStream(file)) {
      byte[] chunk = new byte[8192];
      for (int n; (n = in.read(chunk)) > 0; ) {
        sha256.update(chunk, 0, n);
      }
      return new Digest(HexFormat.of().formatHex(sha256.digest()));
    } catch (NoSuchFileException e) {
      return new Missing();
    } catch (IOException e) {
      return new Unreadable(e.toString());
    }
  }
}
