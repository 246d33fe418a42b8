package dev.sluice.proxy.config;

import java.nio.file.Path;

/** Where the access log (a JSON line per closed pair, and per HTTP request) goes. */
public sealed interface AccessLogTarget {
  /**
   * The process's standard output, interleaved with nothing else (application logs go to stderr).
   */
  record Stdout() implements AccessLogTarget {}

  /** A file, appended to; SIGUSR1 reopens it (after logrotate moved it away). */
  record File(Path path) implements AccessLogTarget {}
}
