package dev.sluice.tls;

import java.nio.file.Path;
import java.security.GeneralSecurityException;

/**
 * Key material or trust material could not be loaded: the message names the file and the problem
 * (unreadable file, no key in it, wrong password, a key that does not match its certificate...).
 */
public final class KeyMaterialException extends GeneralSecurityException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;

  /**
   * @param file the file at fault, or null when the material did not come from a file
   * @param problem what is wrong with it
   * @param cause the underlying exception, or null
   */
  public KeyMaterialException(Path file, String problem, Throwable cause) {
    super(file == null ? problem : file + ": " + problem, cause);
    this.file = file;
  }

  /** The file at fault, or null. */
  public Path file() {
    return file;
  }
}
