package dev.sluice.proxy.config;

/**
 * One thing wrong with a configuration, where it is: {@code file:line: path: message}.
 *
 * @param file the configuration file (or {@code <embedded>})
 * @param line 1-based line, or 0 when the problem has no one place
 * @param path the field, e.g. {@code listeners[0].tls.certificates[1].cert}
 * @param message what is wrong, in words an operator can act on
 */
public record Problem(String file, int line, String path, String message) {
  @Override
  public String toString() {
    return file
        + (line > 0 ? ":" + line : "")
        + ": "
        + (path.isEmpty() ? "" : path + ": ")
        + message;
  }
}
